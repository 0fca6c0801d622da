"""Digits demo: a small convolutional network on the 8×8 handwritten digits, with `F` and autograd.

Reads the 1,797 images of data/digits.csv.gz (E. Alpaydin and C. Kaynak, "Optical Recognition of
Handwritten Digits", UCI Machine Learning Repository, 1998, CC BY 4.0: 8×8 pixels of block counts
0–16, then the digit), splits them 80/20 into training and test sets with a fixed permutation, and
trains

    conv 1→8 (3×3, padding 1) → relu → max-pool 2 → conv 8→16 (3×3, padding 1) → relu →
    max-pool 2 → flatten (64) → linear 64→10

with cross-entropy and SGD with momentum, written as a torch training loop: parameters with
`requires_grad=True`, `F.conv2d` / `F.max_pool2d` / `F.relu` / `F.linear` / `F.cross_entropy`,
`loss.backward()`, the update under `no_grad()`. It prints the loss per epoch and the test
accuracy (about 0.97 after 12 epochs).

The same file runs on torch: `python digits_cnn.py --torch` (the reference). Both start from the
same weights (drawn with Python's `random`, seeded) and see the same batches, so their losses
agree to float32 rounding.

Run it with `make digits` (builds and installs the wheel), or with any Python where the
tensorbind wheel is installed: `python python/examples/digits_cnn.py`.
"""

import csv
import gzip
import math
import os
import random
import sys
import time

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "digits.csv.gz")

EPOCHS = 12
BATCH = 64
LEARNING_RATE = 0.05
MOMENTUM = 0.9
SEED = 0


def load(path):
    """Rows of 64 pixel values scaled to [0, 1], and the digits."""
    with gzip.open(path, "rt", newline="") as f:
        rows, labels = [], []
        for record in csv.reader(f):
            rows.append([int(v) / 16.0 for v in record[:64]])
            labels.append(int(record[64]))
    return rows, labels


def uniform(rng, shape, bound):
    """A nested list of `shape` drawn uniformly from [-bound, bound) (torch's default init bound
    for conv and linear layers is 1/sqrt(fan_in))."""
    if len(shape) == 1:
        return [rng.uniform(-bound, bound) for _ in range(shape[0])]
    return [uniform(rng, shape[1:], bound) for _ in range(shape[0])]


def init_params(torch, rng):
    """The network's parameters, leaves requiring grad."""
    shapes = {
        "conv1.weight": ((8, 1, 3, 3), 1 * 9),
        "conv1.bias": ((8,), 1 * 9),
        "conv2.weight": ((16, 8, 3, 3), 8 * 9),
        "conv2.bias": ((16,), 8 * 9),
        "fc.weight": ((10, 64), 64),
        "fc.bias": ((10,), 64),
    }
    return {
        name: torch.tensor(uniform(rng, shape, 1.0 / math.sqrt(fan_in)), requires_grad=True)
        for name, (shape, fan_in) in shapes.items()
    }


def forward(F, p, x):
    """Logits (n, 10) for images x (n, 1, 8, 8)."""
    h = F.max_pool2d(F.relu(F.conv2d(x, p["conv1.weight"], p["conv1.bias"], padding=1)), 2)
    h = F.max_pool2d(F.relu(F.conv2d(h, p["conv2.weight"], p["conv2.bias"], padding=1)), 2)
    return F.linear(h.flatten(1), p["fc.weight"], p["fc.bias"])


def train(torch, F, epochs=EPOCHS, log=print):
    """Trains the network for `epochs` on backend `torch` (the `_C` module or torch) with its
    functional module `F`; returns the mean training loss of each epoch and the final test
    accuracy."""
    rows, labels = load(DATA)
    rng = random.Random(SEED)
    order = list(range(len(rows)))
    rng.shuffle(order)
    n_train = len(rows) * 4 // 5
    train_idx, test_idx = order[:n_train], order[n_train:]

    def images(idx):
        return torch.tensor([rows[i] for i in idx]).reshape(len(idx), 1, 8, 8)

    def digits(idx):
        return torch.tensor([labels[i] for i in idx])

    x_train, y_train = images(train_idx), digits(train_idx)
    x_test, y_test = images(test_idx), digits(test_idx)
    log(f"digits: {len(rows)} images of 8x8 pixels; {n_train} for training, {len(test_idx)} for test")

    params = init_params(torch, rng)
    velocity = {name: torch.zeros_like(p) for name, p in params.items()}
    n_params = sum(p.numel() for p in params.values())
    log(f"network: conv 1->8, conv 8->16, linear 64->10 ({n_params} parameters)")
    log(f"SGD: {epochs} epochs, batch {BATCH}, lr {LEARNING_RATE}, momentum {MOMENTUM}")

    losses = []
    accuracy = 0.0
    for epoch in range(1, epochs + 1):
        perm = list(range(n_train))
        rng.shuffle(perm)  # a new order of the training images each epoch
        total = 0.0
        t0 = time.perf_counter()
        for b0 in range(0, n_train, BATCH):
            batch = perm[b0 : b0 + BATCH]
            idx = torch.tensor(batch)
            loss = F.cross_entropy(forward(F, params, x_train[idx]), y_train[idx])
            for p in params.values():
                p.grad = None
            loss.backward()
            with torch.no_grad():
                for name, p in params.items():
                    v = velocity[name]
                    v.mul_(MOMENTUM).add_(p.grad)
                    p.sub_(LEARNING_RATE * v)
            total += loss.item() * len(batch)
        with torch.no_grad():
            pred = forward(F, params, x_test).argmax(1)
        accuracy = (pred == y_test).float().mean().item()
        losses.append(total / n_train)
        log(
            f"  epoch {epoch:2d}  train loss {losses[-1]:.4f}  test accuracy {accuracy:.4f}  "
            f"({time.perf_counter() - t0:.2f} s)"
        )
    return losses, accuracy


def main(argv):
    if "--torch" in argv:
        import torch
        import torch.nn.functional as F
    else:
        import _C as torch
        import _C.nn.functional as F
    print(f"backend: {torch.__name__}")
    start = time.perf_counter()
    _, accuracy = train(torch, F)
    print(f"\ntest accuracy: {accuracy:.4f}")
    print(f"done in {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
