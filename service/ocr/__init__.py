"""Text in images and scanned PDFs (issue 38): ocr_attachment and ocr_bulk's engine.

`worker.py` runs in the OCR worker process (decoding, rendering and recognizing within the
`[ocr]` bounds); `engine.py` is the server's side of that process (one unit at a time, each
bounded in time); `reading.py` reads one vault file through the content cache and keeps the
index in step; `attached.py` puts a file's text into the full-text rows of the notes that embed
it; `bulk.py` is the background job over a vault or folder; `component.py` holds them for the app.
This package file imports nothing: the indexer imports `attached` alone.
"""
