"""Object instances from a frame's object pixels: over-segment, then merge what a learned classifier calls one object.

Colour alone cannot tell two touching objects of one hue apart, nor keep a printed box (a coloured body, white
bands, dark print) whole. So the object pixels are first cut into small pieces along colour edges (superpixels:
a watershed from the flat, edge-free areas), and neighbouring pieces are then merged in rounds: a random forest
(trained by `camera-train` on the renderer's instance masks, see `pair_samples`) gives each pair of touching
pieces the probability that they are one object, from measures of the two pieces and of the boundary between
them (colour difference, texture, sizes, how much they touch, the contrast and edge strength along the
boundary) and each piece's own look (mean colour, coarse hue shares: which looks go together in one object, as a
printed box's body and its print do). Each round merges the pairs that are each other's likeliest partner and likely enough; the pieces' and
boundaries' measures are sums, so a merged piece is measured again at no cost.

Nothing here names an object, a colour or a layout: what is one object is learned from the renderer's masks."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

PAIR_FEATURE_NAMES = ("d_light", "d_a", "d_b", "std_min", "std_max", "log_area_min", "log_area_max", "hue_l1",
                      "contact", "cross_contrast", "edge", "centre_gap", "contrast_excess",
                      "big_light", "big_a", "big_b", "small_light", "small_a", "small_b",
                      *(f"big_hue{i}" for i in range(7)), *(f"small_hue{i}" for i in range(7)))
N_HUE = 7           # coarse hue bins of regions.coarse_hue
SEED_CELL = 6       # one superpixel seed per cell of this many pixels a side
MAX_ROUNDS = 40


@dataclass
class Pieces:
    """Superpixels of one frame and their additive measures (index 0 unused: not object)."""

    labels: np.ndarray   # H x W int32, 0 = not an object pixel
    n: np.ndarray        # K pixels per piece
    s: np.ndarray        # K x 3 sum of Lab
    s2: np.ndarray       # K x 3 sum of squared Lab
    xy: np.ndarray       # K x 2 sum of x, y
    hue: np.ndarray      # K x N_HUE counts of coarse hues
    pair: np.ndarray     # P x 2 touching pieces (a < b)
    blen: np.ndarray     # P boundary length (neighbour pixel pairs)
    bcon: np.ndarray     # P summed colour contrast across the boundary
    bedge: np.ndarray    # P summed edge strength along the boundary


def lab_and_edges(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    g = np.zeros(rgb.shape[:2], np.float32)
    for c in range(3):
        ch = np.ascontiguousarray(lab[..., c])
        gx = cv2.Sobel(ch, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(ch, cv2.CV_32F, 0, 1, ksize=3)
        # numpy, not cv2.magnitude: with OpenCV 5.0 here, cv2.magnitude gave different last bits for the same
        # input from call to call, which made training irreproducible
        g = np.maximum(g, np.sqrt(gx * gx + gy * gy) / 4.0)
    return lab, g


def superpixels(rgb: np.ndarray, obj: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Pieces of the object pixels (H x W int32, 0 = not object): a watershed from one seed per SEED_CELL x SEED_CELL
    cell (its object pixel of the weakest edge), so that the pieces are small and their cuts run along colour edges."""
    h, w = obj.shape
    c = SEED_CELL
    hp, wp = -(-h // c) * c, -(-w // c) * c
    g = np.full((hp, wp), np.inf, np.float32)
    g[:h, :w] = np.where(obj, edges, np.inf)
    cells = g.reshape(hp // c, c, wp // c, c).transpose(0, 2, 1, 3).reshape(hp // c, wp // c, c * c)
    best = cells.argmin(2)
    ok = np.isfinite(np.take_along_axis(cells, best[..., None], 2)[..., 0])
    cy, cx = np.nonzero(ok)
    by, bx = np.divmod(best[cy, cx], c)
    markers = np.zeros((h, w), np.int32)
    markers[cy * c + by, cx * c + bx] = np.arange(1, len(cy) + 1, dtype=np.int32)
    markers[~obj] = -1  # a line, from which nothing floods
    if len(cy):
        cv2.watershed(np.ascontiguousarray(rgb[..., ::-1]), markers)
    lab = np.where(obj & (markers > 0), markers, 0)
    hole = obj & (lab == 0)  # watershed lines inside the object pixels join a neighbouring piece
    if hole.any():
        grown = cv2.dilate(lab.astype(np.float32), np.ones((3, 3), np.uint8)).astype(np.int32)
        lab = np.where(hole, grown, lab)
    return lab.astype(np.int32)


def measure(labels: np.ndarray, lab: np.ndarray, edges: np.ndarray, hue: np.ndarray) -> Pieces:
    """Sums per piece and per touching pair. `hue`: H x W coarse hue bin of each pixel."""
    k = int(labels.max()) + 1
    flat = labels.ravel()
    n = np.bincount(flat, minlength=k).astype(np.float64)
    lv = lab.reshape(-1, 3).astype(np.float64)
    s = np.stack([np.bincount(flat, lv[:, c], k) for c in range(3)], 1)
    s2 = np.stack([np.bincount(flat, lv[:, c] ** 2, k) for c in range(3)], 1)
    h, w = labels.shape
    yy, xx = np.divmod(np.arange(h * w, dtype=np.float64), w)
    xy = np.stack([np.bincount(flat, xx, k), np.bincount(flat, yy, k)], 1)
    hc = np.bincount(flat * N_HUE + hue.ravel().astype(np.int64), minlength=k * N_HUE).reshape(k, N_HUE)
    keys, con, edg = [], [], []
    for a, b, la, lb, ea, eb in ((labels[:, :-1], labels[:, 1:], lab[:, :-1], lab[:, 1:], edges[:, :-1], edges[:, 1:]),
                                 (labels[:-1], labels[1:], lab[:-1], lab[1:], edges[:-1], edges[1:])):
        m = (a > 0) & (b > 0) & (a != b)
        lo, hi = np.minimum(a[m], b[m]).astype(np.int64), np.maximum(a[m], b[m]).astype(np.int64)
        keys.append(lo * k + hi)
        con.append(np.sqrt(((la[m] - lb[m]) ** 2).sum(1)))
        edg.append(np.maximum(ea[m], eb[m]))
    key = np.concatenate(keys)
    uk, inv = np.unique(key, return_inverse=True)
    pair = np.stack([uk // k, uk % k], 1)
    return Pieces(labels, n, s, s2, xy, hc.astype(np.float64), pair, np.bincount(inv).astype(np.float64),
                  np.bincount(inv, np.concatenate(con)), np.bincount(inv, np.concatenate(edg)))


def pair_features(p: Pieces, idx: np.ndarray | None = None) -> np.ndarray:
    """P x len(PAIR_FEATURE_NAMES) measures of each touching pair (of the pairs `idx` when given)."""
    pair, blen, bcon, bedge = ((p.pair, p.blen, p.bcon, p.bedge) if idx is None
                               else (p.pair[idx], p.blen[idx], p.bcon[idx], p.bedge[idx]))
    a, b = pair[:, 0], pair[:, 1]
    na, nb = np.maximum(p.n[a], 1)[:, None], np.maximum(p.n[b], 1)[:, None]
    ma, mb = p.s[a] / na, p.s[b] / nb
    sa = np.sqrt(np.maximum(p.s2[a] / na - ma ** 2, 0)).mean(1)
    sb = np.sqrt(np.maximum(p.s2[b] / nb - mb ** 2, 0)).mean(1)
    d = np.abs(ma - mb)
    ha, hb = p.hue[a] / na, p.hue[b] / nb
    nmin, nmax = np.minimum(na[:, 0], nb[:, 0]), np.maximum(na[:, 0], nb[:, 0])
    bl = np.maximum(blen, 1)
    cross = bcon / bl
    gap = np.hypot(*(p.xy[a] / na - p.xy[b] / nb).T) / np.sqrt(na[:, 0] + nb[:, 0])
    a_big = (na >= nb)  # the appearance of each piece, the larger first: which looks go together in one object
    big_m, small_m = np.where(a_big, ma, mb), np.where(a_big, mb, ma)
    big_h, small_h = np.where(a_big, ha, hb), np.where(a_big, hb, ha)
    return np.concatenate([np.stack([d[:, 0], d[:, 1], d[:, 2], np.minimum(sa, sb), np.maximum(sa, sb), np.log(nmin),
                                     np.log(nmax), np.abs(ha - hb).sum(1), blen / np.sqrt(nmin), cross, bedge / bl, gap,
                                     cross - np.sqrt((d ** 2).sum(1))], 1), big_m, small_m, big_h, small_h],
                          1).astype(np.float32)


def _merge(p: Pieces, a: np.ndarray, b: np.ndarray) -> Pieces:
    """Pieces after merging each b into its a (a < b not required; the pairs are disjoint)."""
    k = len(p.n)
    to = np.arange(k)
    to[b] = a
    n, s, s2, xy, hue = p.n.copy(), p.s.copy(), p.s2.copy(), p.xy.copy(), p.hue.copy()
    for arr in (n, s, s2, xy, hue):
        np.add.at(arr, a, arr[b])
        arr[b] = 0
    pa, pb = to[p.pair[:, 0]], to[p.pair[:, 1]]
    keep = pa != pb
    lo, hi = np.minimum(pa, pb)[keep], np.maximum(pa, pb)[keep]
    uk, inv = np.unique(lo * k + hi, return_inverse=True)
    return Pieces(to[p.labels], n, s, s2, xy, hue, np.stack([uk // k, uk % k], 1),
                  np.bincount(inv, p.blen[keep]), np.bincount(inv, p.bcon[keep]), np.bincount(inv, p.bedge[keep]))


def mutual_best(pair: np.ndarray, score: np.ndarray, k: int, min_score: float) -> np.ndarray:
    """Indices of the pairs whose two pieces are each other's best-scoring partner, scoring at least `min_score`
    (ties go to the lower pair index, so the choice is deterministic)."""
    ok = np.nonzero(score >= min_score)[0]
    if len(ok) == 0:
        return np.zeros(0, np.int64)
    order = ok[np.lexsort((ok, -score[ok]))]
    ends = pair[order].ravel()  # each pair's two pieces, best pair first
    pieces, first = np.unique(ends, return_index=True)
    best = np.full(k, -1, np.int64)
    best[pieces] = order[first // 2]
    return ok[(best[pair[ok, 0]] == ok) & (best[pair[ok, 1]] == ok)]


def merge_pieces(p: Pieces, same_probability, min_p: float, min_size: int = 0) -> np.ndarray:
    """Final labels (H x W int32, 0 = not object) after merging rounds; `same_probability(features) -> P`.
    A pair's probability is computed again only when one of its pieces changed. Then a piece smaller than
    `min_size` (too small to be an object) joins the neighbour it is likeliest one object with."""
    k = len(p.n)
    prob = same_probability(pair_features(p)) if len(p.pair) else np.zeros(0)
    for _ in range(MAX_ROUNDS):
        chosen = mutual_best(p.pair, prob, k, min_p)
        if len(chosen) == 0:
            break
        p, prob = _merge_rescored(p, prob, chosen, same_probability)
    for _ in range(3):
        if len(p.pair) == 0:
            break
        small = p.n < min_size
        a_small, b_small = small[p.pair[:, 0]], small[p.pair[:, 1]]
        cand = np.nonzero(a_small | b_small)[0]
        if len(cand) == 0:
            break
        # each small piece's likeliest neighbour; a piece in at most one merge this pass
        order = cand[np.lexsort((cand, -prob[cand]))]
        used = np.zeros(k, bool)
        chosen = []
        for i in order:
            u, v = p.pair[i]
            if not used[u] and not used[v]:
                used[u] = used[v] = True
                chosen.append(i)
        p, prob = _merge_rescored(p, prob, np.array(chosen, np.int64), same_probability)
    return p.labels


def _merge_rescored(p: Pieces, prob: np.ndarray, chosen: np.ndarray, same_probability) -> tuple[Pieces, np.ndarray]:
    k = len(p.n)
    old_keys = p.pair[:, 0] * k + p.pair[:, 1]
    changed = np.zeros(k, bool)
    changed[p.pair[chosen].ravel()] = True
    p = _merge(p, p.pair[chosen, 0], p.pair[chosen, 1])
    new_prob = np.zeros(len(p.pair))
    stale = changed[p.pair[:, 0]] | changed[p.pair[:, 1]]
    keep = np.nonzero(~stale)[0]
    new_prob[keep] = prob[np.searchsorted(old_keys, p.pair[keep, 0] * k + p.pair[keep, 1])]
    redo = np.nonzero(stale)[0]
    if len(redo):
        new_prob[redo] = same_probability(pair_features(p, redo))
    return p, new_prob


def piece_identity(labels: np.ndarray, object_id: np.ndarray, k: int, min_purity: float) -> np.ndarray:
    """Training: the object each piece mostly shows (-1 when it is mostly not one object)."""
    flat, oid = labels.ravel(), object_id.ravel().astype(np.int64)
    m = oid >= 0
    n_obj = int(oid.max()) + 1 if m.any() else 1
    cnt = np.bincount(flat[m] * n_obj + oid[m], minlength=k * n_obj).reshape(k, n_obj)
    tot = np.bincount(flat, minlength=k)
    best = cnt.argmax(1)
    pure = cnt[np.arange(k), best] >= min_purity * np.maximum(tot, 1)
    return np.where(pure & (tot > 0), best, -1)


def pair_samples(p: Pieces, ident: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Training pairs of one frame: (features, 1 = one object) at each stage of merging by the truth, so the
    classifier sees pieces of every size. Each round merges same-object pairs that are each other's best (longest
    boundary), a seeded random share left for later rounds."""
    xs, ys = [], []
    for _ in range(MAX_ROUNDS):
        if len(p.pair) == 0:
            break
        ia, ib = ident[p.pair[:, 0]], ident[p.pair[:, 1]]
        known = (ia >= 0) & (ib >= 0)
        if known.any():
            xs.append(pair_features(p)[known])
            ys.append((ia == ib)[known].astype(np.int8))
        same = known & (ia == ib)
        score = np.where(same & (rng.random(len(same)) < 0.7), p.blen, -1.0)
        chosen = mutual_best(p.pair, score, len(p.n), 0.0)
        if len(chosen) == 0:
            chosen = mutual_best(p.pair, np.where(same, p.blen, -1.0), len(p.n), 0.0)
        if len(chosen) == 0:
            break
        p = _merge(p, p.pair[chosen, 0], p.pair[chosen, 1])
    if not xs:
        return np.zeros((0, len(PAIR_FEATURE_NAMES)), np.float32), np.zeros(0, np.int8)
    return np.concatenate(xs), np.concatenate(ys)
