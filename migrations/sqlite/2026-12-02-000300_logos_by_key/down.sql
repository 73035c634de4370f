-- Keys stay keys: the address a logo was uploaded at is not known any more, and today's server answers a
-- key at its own address.
SELECT 1;
