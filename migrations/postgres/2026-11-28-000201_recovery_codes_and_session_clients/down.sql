DROP TABLE session_clients;
DROP TABLE recovery_codes;
