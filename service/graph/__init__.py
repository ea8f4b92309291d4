"""Graph: link queries over the index, link rewriting and link-safe moves."""
