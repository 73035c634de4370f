-- Whether a one-time code is a six-digit code the user types (not a link's token): wrong typed codes retire
-- only typed codes, so nobody can kill the owner's e-mailed link by typing wrong codes for the address.
ALTER TABLE one_time_codes ADD COLUMN typed BOOLEAN NOT NULL DEFAULT FALSE;
