"""Iris demo: softmax regression on Fisher's Iris data, written with tensorbind's `_C` ops only.

Reads the 150 flowers (four measurements in cm, three species) from data/iris.csv, standardises
the features, fits a multinomial logistic regression by batch gradient descent (the gradient is
written out by hand: `_C` has no autograd), and prints the loss, the training accuracy, a
confusion matrix and the learned weights.

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


def softmax_parts(x, w, b):
    """Shifted logits z (each row's max subtracted, for stability), exp(z) and its row sums."""
    logits = x @ w + b  # (n, k)
    z = logits - logits.amax(1, keepdim=True)
    e = z.exp()
    return z, e, e.sum(1, keepdim=True)


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

    w = _C.zeros(d, k)
    b = _C.zeros(1, k)
    print(f"\nsoftmax regression, batch gradient descent: {STEPS} steps, lr {LEARNING_RATE}, L2 {L2}")
    for step in range(STEPS + 1):
        z, e, s = softmax_parts(xs, w, b)
        p = e / s  # class probabilities, (150, 3)
        if step % 100 == 0:
            log_p = z - s.log()
            nll = -((onehot * log_p).sum().item()) / n
            loss = nll + 0.5 * L2 * (w * w).sum().item()
            print(f"  step {step:3d}  loss {loss:.4f}")
        if step == STEPS:
            break
        # d(mean cross-entropy)/d(logits) = (p - onehot) / n
        g = (p - onehot) / n
        grad_w = xs.transpose(0, 1) @ g + w * L2  # (4, 3)
        grad_b = g.sum(0, keepdim=True)  # (1, 3)
        w.sub_(grad_w * LEARNING_RATE)
        b.sub_(grad_b * LEARNING_RATE)

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
    for name, row in zip(features, w.tolist()):
        print(f"{name:<16}" + "".join(f"{v:>12.3f}" for v in row))
    print(f"{'bias':<16}" + "".join(f"{v:>12.3f}" for v in b.tolist()[0]))
    print(f"\ndone in {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
