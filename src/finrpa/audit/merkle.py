"""RFC 6962 (Certificate Transparency) Merkle trees: tree heads, inclusion proofs, consistency proofs.

Leaf hash ``SHA-256(0x00 || data)``, node hash ``SHA-256(0x01 || left || right)``, the head of the empty tree
``SHA-256("")``. Proofs are generated as in RFC 6962 §2.1.1/§2.1.2 and verified with the algorithms of
RFC 9162 §2.1.3.2/§2.1.4.2, so any CT-compatible verifier can check what FinRPA exports.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"
EMPTY_ROOT = hashlib.sha256(b"").digest()
HASH_SIZE = 32


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(LEAF_PREFIX + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def _largest_power_of_two_below(n: int) -> int:
    """The k of RFC 6962: the largest power of two strictly smaller than n (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def root_of(leaf_hashes: Sequence[bytes]) -> bytes:
    """MTH(D[n]) of a list of leaf hashes."""
    level = list(leaf_hashes)
    if not level:
        return EMPTY_ROOT
    while len(level) > 1:
        paired = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])  # the lone right node moves up unchanged (RFC 6962's ragged right edge)
        level = paired
    return level[0]


class MerkleAccumulator:
    """Appends leaves one at a time and gives the tree head at every size in O(log n) memory."""

    __slots__ = ("_stack", "size")

    def __init__(self) -> None:
        self._stack: list[tuple[int, bytes]] = []
        self.size = 0

    def append(self, leaf: bytes) -> None:
        """Add a leaf *hash* (already prefixed with 0x00, see :func:`leaf_hash`)."""
        stack = self._stack
        width, digest = 1, leaf
        while stack and stack[-1][0] == width:
            left_width, left = stack.pop()
            width, digest = left_width + width, node_hash(left, digest)
        stack.append((width, digest))
        self.size += 1

    @classmethod
    def from_frontier(cls, size: int, frontier: Sequence[bytes]) -> MerkleAccumulator:
        """Continue a tree of ``size`` leaves from its frontier (see :meth:`frontier`); ValueError if they disagree.

        The frontier of an RFC 6962 tree is the roots of its perfect subtrees from the left, one per set bit of
        ``size``, largest first: everything needed to append further leaves and compute every later root.
        """
        widths = [1 << bit for bit in reversed(range(size.bit_length())) if size >> bit & 1]
        if size < 0 or len(widths) != len(frontier) or any(len(node) != HASH_SIZE for node in frontier):
            raise ValueError(f"a frontier of {len(frontier)} hashes does not describe a tree of {size} leaves")
        accumulator = cls()
        accumulator._stack = list(zip(widths, frontier, strict=True))
        accumulator.size = size
        return accumulator

    def frontier(self) -> list[bytes]:
        """The roots of the perfect subtrees that make up the tree, largest (leftmost) first."""
        return [digest for _, digest in self._stack]

    def root(self) -> bytes:
        if not self._stack:
            return EMPTY_ROOT
        digest = self._stack[-1][1]
        for _, left in reversed(self._stack[:-1]):
            digest = node_hash(left, digest)
        return digest


class MerkleTree:
    """All levels of one tree, for many inclusion proofs against the same head."""

    def __init__(self, leaf_hashes: Iterable[bytes]) -> None:
        levels = [list(leaf_hashes)]
        while len(levels[-1]) > 1:
            below = levels[-1]
            above = [node_hash(below[i], below[i + 1]) for i in range(0, len(below) - 1, 2)]
            if len(below) % 2:
                above.append(below[-1])
            levels.append(above)
        self._levels = levels

    @property
    def size(self) -> int:
        return len(self._levels[0])

    def root(self) -> bytes:
        return self._levels[-1][0] if self.size else EMPTY_ROOT

    def leaf(self, index: int) -> bytes:
        return self._levels[0][index]

    def inclusion_proof(self, index: int) -> list[bytes]:
        """PATH(index, D[size]) of RFC 6962 §2.1.1, nearest sibling first."""
        if not 0 <= index < self.size:
            raise IndexError(f"leaf {index} is outside a tree of {self.size} leaves")
        path: list[bytes] = []
        for level in self._levels[:-1]:
            sibling = index ^ 1
            if sibling < len(level):  # no sibling: this node is promoted unchanged
                path.append(level[sibling])
            index >>= 1
        return path


def inclusion_proof(leaf_hashes: Sequence[bytes], index: int) -> list[bytes]:
    return MerkleTree(leaf_hashes).inclusion_proof(index)


def consistency_proof(leaf_hashes: Sequence[bytes], old_size: int) -> list[bytes]:
    """PROOF(old_size, D[n]) of RFC 6962 §2.1.2 between the first ``old_size`` leaves and all of them."""
    if not 0 <= old_size <= len(leaf_hashes):
        raise ValueError(f"old tree size {old_size} is not between 0 and {len(leaf_hashes)}")
    if old_size in (0, len(leaf_hashes)):
        return []
    return _subproof(old_size, leaf_hashes, complete=True)


def _subproof(m: int, leaves: Sequence[bytes], complete: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if complete else [root_of(leaves)]
    k = _largest_power_of_two_below(n)
    if m <= k:
        return [*_subproof(m, leaves[:k], complete), root_of(leaves[k:])]
    return [*_subproof(m - k, leaves[k:], False), root_of(leaves[:k])]


def root_from_inclusion_proof(index: int, size: int, leaf: bytes, proof: Sequence[bytes]) -> bytes | None:
    """The root that ``proof`` leads to from ``leaf`` (RFC 9162 §2.1.3.2), or None if the proof is malformed."""
    if not 0 <= index < size or len(leaf) != HASH_SIZE:
        return None
    fn, sn, digest = index, size - 1, leaf
    for sibling in proof:
        if sn == 0 or len(sibling) != HASH_SIZE:
            return None
        if fn & 1 or fn == sn:
            digest = node_hash(sibling, digest)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            digest = node_hash(digest, sibling)
        fn >>= 1
        sn >>= 1
    return digest if sn == 0 else None


def verify_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes], root: bytes) -> bool:
    return root_from_inclusion_proof(index, size, leaf, proof) == root


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]) -> bool:
    """True if the tree of ``new_size`` leaves extends the tree of ``old_size`` leaves (RFC 9162 §2.1.4.2)."""
    if old_size < 0 or new_size < old_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0:
        return not proof
    if not proof or any(len(node) != HASH_SIZE for node in proof):
        return False
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # an exact power of two: the old root is itself a node of the path
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    first_root = second_root = path[0]
    for node in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            first_root = node_hash(node, first_root)
            second_root = node_hash(node, second_root)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            second_root = node_hash(second_root, node)
        fn >>= 1
        sn >>= 1
    return sn == 0 and first_root == old_root and second_root == new_root
