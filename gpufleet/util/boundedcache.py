"""A least-recently-used cache bounded in bytes, not entries.

Used where a parse result is cached by the text it came from (quantities in
:mod:`gpufleet.kubetypes.quantity`, the ConfigMap documents of the GANG5xx rules): with an entry
count as the only bound, distinct hostile texts (a 900,000-digit quantity, a 0.8 MB
config) would each keep megabytes alive. Here every entry has a cost (about the bytes
it keeps: the key's length times a factor for the parsed value), the total is capped,
and an entry costing more than an eighth of the cap is never stored. A lock guards the
bookkeeping (the webhook checks large reviews on a worker thread); ``compute`` runs outside it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ByteBoundedCache(Generic[K, V]):
    """``get_or_compute(key, compute)``: memoise ``compute(key)`` under a byte budget."""

    def __init__(self, max_bytes: int, cost: Callable[[K], int]) -> None:
        self.max_bytes, self.cost = max_bytes, cost
        self.used = 0
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get_or_compute(self, key: K, compute: Callable[[K], V]) -> V:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit[0]
        value = compute(key)
        size = self.cost(key)
        if size > self.max_bytes // 8:
            return value
        with self._lock:
            if key not in self._items:
                self._items[key] = (value, size)
                self.used += size
            while self.used > self.max_bytes and self._items:
                _, (_, dropped) = self._items.popitem(last=False)
                self.used -= dropped
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.used = 0
