DROP TABLE platform_setup_tokens;
