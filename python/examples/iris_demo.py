"""Iris demo: softmax regression on Fisher's Iris data, written with tensorbind's `_C` ops only.

Reads the 150 flowers (four measurements in cm, three species) from data/iris.csv, standardises
the features, fits a multinomial logistic regression by batch gradient descent — written as a
torch training loop: parameters with `requires_grad=True`, `loss.backward()`, the update under
`no_grad()`, `grad.zero_()` — and prints the loss, the training accuracy, a confusion matrix and
the learned weights.

Run it with `make demo` (builds the wheel, installs it into .venv, runs this file), or with any
Python where the tensorbind wheel is installed: `python python/examples/iris_demo.py`.
"""

import csv
import os
import time

import _C

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "iris.csv")

STEPS = 500
LEARNING_RATE = 0.5
L2 = 1e-3  # weight decay: setosa is linearly separable, so keep the weights finite


def load(path):
    """Feature names, species names, rows of four floats, and species indices."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows, labels, species = [], [], []
        for record in reader:
            rows.append([float(v) for v in record[:4]])
            if record[4] not in species:
                species.append(record[4])
            labels.append(species.index(record[4]))
    return header[:4], species, rows, labels


def loss_fn(x, onehot, w, b):
    """Mean cross-entropy of the softmax of x @ w + b against the one-hot targets, plus L2."""
    log_p = (x @ w + b).log_softmax(1)  # (n, k)
    nll = -(onehot * log_p).sum() / x.shape[0]
    return nll + 0.5 * L2 * (w * w).sum()


def main():
    start = time.perf_counter()
    features, species, rows, labels = load(DATA)
    x = _C.tensor(rows, dtype=_C.float32)  # (150, 4)
    y = _C.tensor(labels)  # (150,) int64
    n, d = x.shape
    k = len(species)
    print(f"Iris: {n} flowers, {d} features, {k} species ({', '.join(species)})")

    # Standardise each feature: zero mean, unit variance over the 150 flowers.
    mean = x.mean(0, keepdim=True)  # (1, 4)
    std = ((x - mean) ** 2).mean(0, keepdim=True).sqrt()
    xs = (x - mean) / std
    for name, m, s in zip(features, mean.flatten().tolist(), std.flatten().tolist()):
        print(f"  {name:<16} mean {m:6.3f}  std {s:6.3f}")

    # One-hot targets: row i has a 1 in column labels[i].
    onehot = (y.unsqueeze(1) == _C.arange(k).unsqueeze(0)).float()  # (150, 3)

    w = _C.zeros(d, k, requires_grad=True)
    b = _C.zeros(1, k, requires_grad=True)
    print(f"\nsoftmax regression, batch gradient descent: {STEPS} steps, lr {LEARNING_RATE}, L2 {L2}")
    for step in range(STEPS + 1):
        loss = loss_fn(xs, onehot, w, b)
        if step % 100 == 0:
            print(f"  step {step:3d}  loss {loss.item():.4f}")
        if step == STEPS:
            break
        loss.backward()
        with _C.no_grad():
            w -= LEARNING_RATE * w.grad
            b -= LEARNING_RATE * b.grad
            w.grad.zero_()
            b.grad.zero_()

    with _C.no_grad():
        p = (xs @ w + b).softmax(1)
    pred = p.argmax(1)
    accuracy = (pred == y).float().mean().item()
    correct = (pred == y).long().sum().item()
    print(f"\ntraining accuracy: {accuracy:.4f} ({correct}/{n})")

    print("\nconfusion matrix (rows: true species, columns: predicted)")
    print(" " * 12 + "".join(f"{s:>12}" for s in species))
    for i, true_name in enumerate(species):
        is_i = (y == i).float()
        counts = [int((is_i * (pred == j).float()).sum().item()) for j in range(k)]
        print(f"{true_name:>12}" + "".join(f"{c:>12d}" for c in counts))

    print("\nlearned weights (standardised features; one column per species)")
    print(" " * 16 + "".join(f"{s:>12}" for s in species))
    for name, row in zip(features, w.detach().tolist()):
        print(f"{name:<16}" + "".join(f"{v:>12.3f}" for v in row))
    print(f"{'bias':<16}" + "".join(f"{v:>12.3f}" for v in b.detach().tolist()[0]))
    print(f"\ndone in {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
