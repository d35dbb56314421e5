"""A WGAN-GP-style gradient penalty on a small 2-D problem (double backprop in action).

A critic is trained to separate samples of a "real" Gaussian ring from a "fake" Gaussian blob
while keeping the norm of its input gradient near 1 on points between the two:

    penalty = mean((||d critic(x_hat) / d x_hat|| - 1)^2)

The input gradient is computed with ``chainlet.grad(..., enable_double_backprop=True)``, so the
penalty is itself differentiable and its gradient reaches the critic's parameters.

Run: python examples/gradient_penalty.py [--steps 300] [--device @numpy | @cupy:0]
"""
from __future__ import annotations

import argparse

import numpy as np

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import backend, optimizers


class Critic(chainlet.Chain):
    def __init__(self, n_hidden: int = 64) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(2, n_hidden)
            self.l2 = L.Linear(n_hidden, n_hidden)
            self.l3 = L.Linear(n_hidden, 1)

    def forward(self, x):
        h = F.tanh(self.l1(x))
        h = F.tanh(self.l2(h))
        return self.l3(h)


def sample_real(rng, n):
    angle = rng.uniform(0, 2 * np.pi, n)
    r = 2.0 + 0.1 * rng.standard_normal(n)
    return np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1).astype(np.float32)


def sample_fake(rng, n):
    return (0.5 * rng.standard_normal((n, 2))).astype(np.float32)


def gradient_penalty(critic, real, fake, rng, device):
    eps = device.send(rng.uniform(0, 1, (len(real), 1)).astype(np.float32))
    x_hat = chainlet.Variable(eps * real + (1 - eps) * fake)
    score = critic(x_hat)
    grad, = chainlet.grad([F.sum(score)], [x_hat], enable_double_backprop=True)
    norm = F.sqrt(F.sum(grad * grad, axis=1) + 1e-12)
    return F.mean((norm - 1.0) ** 2), norm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--steps', type=int, default=300)
    parser.add_argument('--batch-size', type=int, default=128)
    parser.add_argument('--lambda-gp', type=float, default=10.0)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--device', default='@numpy',
                        help="where to train: '@numpy' (CPU) or '@cupy:0' (GPU 0)")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    np.random.seed(args.seed)
    device = backend.get_device(args.device)
    critic = Critic().to_device(device)
    opt = optimizers.Adam(alpha=1e-3, beta1=0.5, beta2=0.9)
    opt.setup(critic)
    for step in range(1, args.steps + 1):
        real = device.send(sample_real(rng, args.batch_size))
        fake = device.send(sample_fake(rng, args.batch_size))
        wasserstein = F.mean(critic(fake)) - F.mean(critic(real))
        penalty, norm = gradient_penalty(critic, real, fake, rng, device)
        loss = wasserstein + args.lambda_gp * penalty
        critic.cleargrads()
        loss.backward()  # second-order: flows through the gradient inside the penalty
        opt.update()
        if step % 50 == 0 or step == 1:
            print(f'step {step:4d}  critic loss {float(loss.array):8.4f}  '
                  f'W-estimate {-float(wasserstein.array):7.4f}  '
                  f'grad-norm mean {float(norm.array.mean()):.3f}', flush=True)
    _, norm = gradient_penalty(critic, device.send(sample_real(rng, 512)),
                               device.send(sample_fake(rng, 512)), rng, device)
    print(f'final mean input-gradient norm: {float(norm.array.mean()):.3f} (target 1)')


if __name__ == '__main__':
    main()
