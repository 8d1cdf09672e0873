-- Images attached to a message (JSON list of {media_type, data (base64),
-- url, name, size}), NULL for the text-only messages that are most of
-- them. The column is last in the row, so reading the other columns never
-- reads an image's overflow pages.
ALTER TABLE messages ADD COLUMN images TEXT;
