"""The Merkle code against the RFC 6962 / Certificate Transparency reference vectors, and round trips."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finrpa.audit.merkle import (
    EMPTY_ROOT,
    MerkleAccumulator,
    MerkleTree,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    root_of,
    verify_consistency,
    verify_inclusion,
)

# Leaves and tree heads of the Certificate Transparency reference tests (certificate-transparency-go,
# merkle/logverifier and the C++ merkle_tree_test): the head of the first n leaves for n = 1..8.
CT_LEAVES = [
    bytes.fromhex(h)
    for h in ("", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f")
]
CT_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
# (leaf index, tree size, audit path) — the CT inclusionProofs vectors (their leaf numbers are 1-based).
CT_INCLUSION = [
    (0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (1, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]  # fmt: skip
# (old size, new size, consistency proof) — the CT consistencyProofs vectors.
CT_CONSISTENCY = [
    (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]  # fmt: skip
LEAF_HASHES = [leaf_hash(leaf) for leaf in CT_LEAVES]


def _hex(items: list[bytes]) -> list[str]:
    return [item.hex() for item in items]


def test_empty_tree_head_is_the_hash_of_nothing() -> None:
    assert EMPTY_ROOT.hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert root_of([]) == EMPTY_ROOT
    assert MerkleAccumulator().root() == EMPTY_ROOT


@pytest.mark.parametrize("size", range(1, 9))
def test_tree_heads_match_the_reference_for_every_size(size: int) -> None:
    assert root_of(LEAF_HASHES[:size]).hex() == CT_ROOTS[size - 1]
    assert MerkleTree(LEAF_HASHES[:size]).root().hex() == CT_ROOTS[size - 1]
    accumulator = MerkleAccumulator()
    for leaf in LEAF_HASHES[:size]:
        accumulator.append(leaf)
    assert accumulator.root().hex() == CT_ROOTS[size - 1]


@pytest.mark.parametrize(("index", "size", "path"), CT_INCLUSION)
def test_inclusion_proofs_match_the_reference(index: int, size: int, path: list[str]) -> None:
    proof = inclusion_proof(LEAF_HASHES[:size], index)
    assert _hex(proof) == path
    root = bytes.fromhex(CT_ROOTS[size - 1])
    assert verify_inclusion(index, size, LEAF_HASHES[index], proof, root)


@pytest.mark.parametrize(("index", "size", "path"), CT_INCLUSION)
def test_corrupted_inclusion_proofs_are_rejected(index: int, size: int, path: list[str]) -> None:
    proof = [bytes.fromhex(p) for p in path]
    root = bytes.fromhex(CT_ROOTS[size - 1])
    leaf = LEAF_HASHES[index]
    some_hash = bytes.fromhex("abacaba000000000000000000000000000000000000000000060061e00123456")
    probes = [
        (index - 1, size, leaf, proof, root),
        (index + 1, size, leaf, proof, root),
        (index ^ 2, size, leaf, proof, root),
        (index, size * 2, leaf, proof, root),
        (index, size // 2, leaf, proof, root),
        (index, size, leaf_hash(b"WrongLeaf"), proof, root),
        (index, size, leaf, proof, EMPTY_ROOT),
        (index, size, leaf, proof, some_hash),
        (index, size, leaf, [*proof, b""], root),
        (index, size, leaf, [*proof, root], root),
        (index, size, leaf, [b"", *proof], root),
        (index, size, leaf, [root, *proof], root),
        (index, size, leaf, proof[:-1], root),
    ]
    for i in range(len(proof)):
        flipped = bytearray(proof[i])
        flipped[0] ^= 8
        probes.append((index, size, leaf, [*proof[:i], bytes(flipped), *proof[i + 1 :]], root))
    if len(proof) > 1:
        probes.append((index, size, leaf, [proof[0], some_hash, *proof[1:]], root))
    for probe in probes:
        assert not verify_inclusion(*probe), probe


@pytest.mark.parametrize(("old", "new", "path"), CT_CONSISTENCY)
def test_consistency_proofs_match_the_reference(old: int, new: int, path: list[str]) -> None:
    proof = consistency_proof(LEAF_HASHES[:new], old)
    assert _hex(proof) == path
    old_root, new_root = bytes.fromhex(CT_ROOTS[old - 1]), bytes.fromhex(CT_ROOTS[new - 1])
    assert verify_consistency(old, new, old_root, new_root, proof)
    assert not verify_consistency(old, new, new_root, old_root, proof)
    assert not verify_consistency(old, new, old_root, new_root, proof[:-1])
    assert not verify_consistency(old, new, old_root, new_root, [])
    assert not verify_consistency(old - 1, new, old_root, new_root, proof)
    assert not verify_consistency(old, new * 2, old_root, new_root, proof)
    for i in range(len(proof)):
        flipped = bytearray(proof[i])
        flipped[0] ^= 16
        assert not verify_consistency(old, new, old_root, new_root, [*proof[:i], bytes(flipped), *proof[i + 1 :]])


def test_consistency_edge_cases_follow_the_reference_verifier() -> None:
    root1, root2 = hashlib.sha256(b"don't care 1").digest(), hashlib.sha256(b"don't care 2").digest()
    assert verify_consistency(0, 0, root1, root1, [])
    assert verify_consistency(0, 1, root1, root2, [])
    assert verify_consistency(1, 1, root2, root2, [])
    assert not verify_consistency(1, 1, root1, root2, [])
    assert not verify_consistency(1, 0, root1, root2, [])
    assert not verify_consistency(2, 1, root1, root2, [])
    assert not verify_consistency(1, 2, root1, root2, [])
    assert not verify_consistency(0, 0, EMPTY_ROOT, EMPTY_ROOT, [EMPTY_ROOT])
    assert not verify_consistency(1, 1, EMPTY_ROOT, EMPTY_ROOT, [EMPTY_ROOT])


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=70), st.data())
def test_every_leaf_proves_its_inclusion_and_every_prefix_its_consistency(size: int, data: st.DataObject) -> None:
    leaves = [leaf_hash(i.to_bytes(4, "big")) for i in range(size)]
    tree = MerkleTree(leaves)
    root = tree.root()
    index = data.draw(st.integers(min_value=0, max_value=size - 1))
    assert verify_inclusion(index, size, leaves[index], tree.inclusion_proof(index), root)
    assert not verify_inclusion(index, size, leaf_hash(b"other"), tree.inclusion_proof(index), root)
    old = data.draw(st.integers(min_value=0, max_value=size))
    proof = consistency_proof(leaves, old)
    assert verify_consistency(old, size, root_of(leaves[:old]), root, proof)
    if 0 < old < size:
        assert not verify_consistency(old, size, root_of([*leaves[: old - 1], leaf_hash(b"x")]), root, proof)


def test_a_tree_continued_from_its_frontier_gives_the_roots_of_the_full_tree() -> None:
    leaves = [leaf_hash(str(index).encode()) for index in range(70)]
    for size in (0, 1, 2, 5, 8, 13, 32, 33):
        grown = MerkleAccumulator()
        for leaf in leaves[:size]:
            grown.append(leaf)
        continued = MerkleAccumulator.from_frontier(size, grown.frontier())
        for count, leaf in enumerate(leaves[size:], start=size + 1):
            continued.append(leaf)
            assert continued.size == count
            assert continued.root() == root_of(leaves[:count])


def test_a_frontier_that_does_not_fit_the_size_is_refused() -> None:
    with pytest.raises(ValueError, match="does not describe a tree of 5 leaves"):
        MerkleAccumulator.from_frontier(5, [leaf_hash(b"a")])  # 5 leaves need two perfect subtrees (4 + 1)
