DROP TABLE oauth_auth_codes;
DROP TABLE oauth_flows;
