"""The bundled guides' vectors, shipped with the package: a fresh store copies them instead of running the model.

Embedding the 550-odd guide chunks takes ~20 s on two CPU cores, and it happened on every new data directory, so a
user's first question waited for it. The vectors are keyed as ingest keys chunks (the hash of the text embedded) and
belong to one embedder signature; a chunk the seed lacks (an edited guide, a user's document) or another model is
embedded as before, so a stale seed only costs time, never a wrong vector. Rebuild after editing a guide:
`python -m knowledge.seed` (tests/test_seed.py fails while it is stale).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

SEED_PATH = Path(__file__).parent / "data" / "guide_vectors.npz"


@cache
def seed_vectors(signature: str, path: Path = SEED_PATH) -> dict[str, list[float]]:
    """Chunk hash -> vector for `signature`'s model; empty when there is no seed or it is another model's."""
    if not path.exists():
        return {}
    import numpy as np

    with np.load(path, allow_pickle=False) as z:
        if str(z["signature"]) != signature:
            return {}
        return {h: [float(x) for x in v] for h, v in zip(z["hashes"].tolist(), z["vectors"], strict=True)}


def write_seed(path: Path = SEED_PATH) -> int:
    """Embed every bundled guide chunk with the default model and write the seed; returns the chunks written."""
    import numpy as np

    from knowledge.embeddings import get_embedder
    from knowledge.ingest import chunk_document, load_guides
    from knowledge.store import KnowledgeConfig

    embedder = get_embedder(KnowledgeConfig().embed_model)
    records = {r.hash: r for doc in load_guides() for r in chunk_document(doc)}
    hashes = sorted(records)
    vectors = embedder.embed([records[h].embed_text for h in hashes])
    np.savez_compressed(
        path, signature=np.array(embedder.signature), hashes=np.array(hashes), vectors=np.array(vectors, "float32")
    )
    seed_vectors.cache_clear()
    return len(hashes)


if __name__ == "__main__":
    print(f"{write_seed()} guide chunks written to {SEED_PATH}")
