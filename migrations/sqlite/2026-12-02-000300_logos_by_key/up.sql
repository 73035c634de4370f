-- Logos are stored by their key, '/api/images/<id>', not with the address the portal had when they were
-- uploaded (issue 48 item 1): the delivery URL is built from PORTAL_PUBLIC_URL whenever a logo is read.
-- A stored link that ends in '/api/images/<id>' of one of this portal's images (ids are 36 characters)
-- becomes that image's key, whatever address it was written with; links to other sites stay as they are.
UPDATE apps SET logo_url = '/api/images/' || substr(logo_url, length(logo_url) - 35)
WHERE substr(logo_url, length(logo_url) - 47, 12) = '/api/images/'
    AND substr(logo_url, length(logo_url) - 35) IN (SELECT id FROM images);

UPDATE organizations SET logo = '/api/images/' || substr(logo, length(logo) - 35)
WHERE substr(logo, length(logo) - 47, 12) = '/api/images/'
    AND substr(logo, length(logo) - 35) IN (SELECT id FROM images);
