-- A confirmation token approves what the human was shown: the SHA-256 of the request's preview
-- (its summary and every file it changes) is kept with the token, and a call presenting the token
-- proceeds only while its own preview is still the same (NULL: a token minted before this column,
-- bound to the call's arguments only).
ALTER TABLE confirmation_tokens ADD COLUMN preview_sha TEXT;
