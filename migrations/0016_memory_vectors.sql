-- Vectors of memory observations (service.memory.recall), by model and the hash of the text
-- embedded ("<entity>: <observation>"): a restart, or the same observation in another vault,
-- embeds nothing again. A cache: rebuildable from the vault.
CREATE TABLE memory_vectors (
    model  TEXT NOT NULL,
    hash   TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, hash)
) WITHOUT ROWID;
