"""Train a variational autoencoder on scikit-learn's 8x8 digits with ``chainlet.distributions``.

The model is written the way Chainer's own VAE example writes it, with probability
distributions instead of hand-written loss formulas:

- the encoder maps an image ``x`` to the posterior ``q(z|x) = Normal(mu(x), sigma(x))``
  over a small latent vector ``z``; ``sample`` is reparameterized, so the gradient of the
  loss reaches the encoder through the sample;
- the decoder maps ``z`` to ``p(x|z) = Bernoulli(logit(z))`` over the 64 pixels (the grey
  levels, scaled to ``[0, 1]``, are used as soft targets, as Chainer's MNIST example does);
- the prior is ``p(z) = Normal(0, 1)``.

The loss is the negative evidence lower bound (ELBO) averaged over the batch,
``-E_q[log p(x|z)] + beta * KL(q(z|x) || p(z))``, with the KL term in closed form
(``chainlet.kl_divergence``). Training runs on ``chainlet.training.Trainer``; the test loss
is evaluated before and after training and printed last, so a run shows it going down.

The script is written as a Chainer script would be; only the import differs.

Run:
    python examples/train_vae.py [--epochs 30] [--dim-z 8] [--out result_vae]
        [--device @numpy | @cupy:0]
"""
from __future__ import annotations

import argparse

import numpy as np

import chainlet as chainer
import chainlet.distributions as D
import chainlet.functions as F
import chainlet.links as L
from chainlet import training
from chainlet.training import extensions


class Encoder(chainer.Chain):
    """``x -> q(z|x)``: a tanh hidden layer, then the mean and the log standard deviation."""

    def __init__(self, n_in, n_hidden, n_latent):
        super().__init__()
        with self.init_scope():
            self.hidden = L.Linear(n_in, n_hidden)
            self.mu = L.Linear(n_hidden, n_latent)
            self.ln_sigma = L.Linear(n_hidden, n_latent)

    def forward(self, x):
        h = F.tanh(self.hidden(x))
        # Independent(..., 1): the latent dimensions form one event, so log_prob and the KL
        # divergence are summed over them and there is one value per example.
        return D.Independent(D.Normal(loc=self.mu(h), log_scale=self.ln_sigma(h)), 1)


class Decoder(chainer.Chain):
    """``z -> p(x|z)``: a tanh hidden layer, then one Bernoulli logit per pixel."""

    def __init__(self, n_in, n_hidden, n_latent):
        super().__init__()
        with self.init_scope():
            self.hidden = L.Linear(n_latent, n_hidden)
            self.logit = L.Linear(n_hidden, n_in)

    def forward(self, z, inference=False):
        # z has the shape (k, batch, n_latent) when k posterior samples are drawn per example;
        # the linear layers see the samples as one long batch.
        sample_shape = z.shape[:-1]
        h = F.tanh(self.hidden(F.reshape(z, (-1, z.shape[-1]))))
        logit = F.reshape(self.logit(h), sample_shape + (-1,))
        if inference:
            return F.sigmoid(logit)
        return D.Independent(D.Bernoulli(logit=logit), 1)


class Prior(chainer.Link):
    """``p(z) = Normal(0, 1)``; its parameters are persistent arrays, so they follow
    ``to_device`` and the snapshots but are not trained."""

    def __init__(self, n_latent):
        super().__init__()
        self.loc = np.zeros(n_latent, np.float32)
        self.scale = np.ones(n_latent, np.float32)
        self.register_persistent('loc')
        self.register_persistent('scale')

    def forward(self):
        return D.Independent(D.Normal(self.loc, scale=self.scale), 1)


class AvgELBOLoss(chainer.Chain):
    """The negative ELBO averaged over the batch; reports ``loss``, ``reconstr`` and ``kl``.

    Args:
        encoder, decoder, prior: The three parts of the model.
        beta: Weight of the KL term (1 gives the ELBO itself).
        k: Number of posterior samples per example in the Monte Carlo estimate of the
            reconstruction term.
    """

    def __init__(self, encoder, decoder, prior, beta=1.0, k=1):
        super().__init__()
        self.beta = beta
        self.k = k
        with self.init_scope():
            self.encoder = encoder
            self.decoder = decoder
            self.prior = prior

    def forward(self, x):
        q_z = self.encoder(x)
        z = q_z.sample(self.k)                 # (k, batch, n_latent), reparameterized
        p_x = self.decoder(z)
        p_z = self.prior()

        # log p(x|z) for each sample and example: the targets broadcast over the k samples.
        x_k = F.broadcast_to(x[None], (self.k,) + x.shape)
        reconstr = F.mean(p_x.log_prob(x_k))
        kl = F.mean(chainer.kl_divergence(q_z, p_z))
        loss = -(reconstr - self.beta * kl)
        chainer.report({'loss': loss, 'reconstr': -reconstr, 'kl': kl}, self)
        return loss


def evaluate_loss(model, dataset, device, batchsize=256):
    """Mean negative ELBO of ``dataset`` (test mode, no graph)."""
    total = 0.0
    with chainer.using_config('train', False), chainer.no_backprop_mode():
        for start in range(0, len(dataset), batchsize):
            x = device.send(np.asarray(dataset[start:start + batchsize]))
            total += float(model(x).array) * len(x)
    return total / len(dataset)


def main():
    parser = argparse.ArgumentParser(description='VAE on the 8x8 digits with distributions')
    parser.add_argument('--batchsize', '-b', type=int, default=64)
    parser.add_argument('--epochs', '-e', type=int, default=30)
    parser.add_argument('--dim-z', '-z', type=int, default=8, help='size of the latent vector')
    parser.add_argument('--unit', '-u', type=int, default=128, help='hidden units')
    parser.add_argument('--beta', type=float, default=1.0, help='weight of the KL term')
    parser.add_argument('--k', type=int, default=1, help='posterior samples per example')
    parser.add_argument('--out', '-o', default='result_vae')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--device', '-d', default='@numpy',
                        help="where to train: '@numpy' (CPU) or '@cupy:0' (GPU 0)")
    args = parser.parse_args()

    device = chainer.get_device(args.device)
    device.use()
    # Initial weights, shuffling and the posterior samples draw from the global generator of
    # the device's array module.
    np.random.seed(args.seed)
    device.xp.random.seed(args.seed)

    train, test = chainer.datasets.get_digits(withlabel=False)
    n_in = train.shape[1]
    encoder = Encoder(n_in, args.unit, args.dim_z)
    decoder = Decoder(n_in, args.unit, args.dim_z)
    prior = Prior(args.dim_z)
    model = AvgELBOLoss(encoder, decoder, prior, beta=args.beta, k=args.k)
    model.to_device(device)

    optimizer = chainer.optimizers.Adam(alpha=3e-3)
    optimizer.setup(model)

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize, repeat=False,
                                                 shuffle=False)
    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epochs, 'epoch'), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    trainer.extend(extensions.DumpGraph('main/loss'))   # cg.dot: the graph of one loss
    trainer.extend(extensions.snapshot_object(model, 'model_epoch_{.updater.epoch}'),
                   trigger=(args.epochs, 'epoch'))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss', 'main/reconstr', 'main/kl',
         'elapsed_time']))

    initial = evaluate_loss(model, test, device)
    print(f'initial test loss (negative ELBO): {initial:.3f}')
    trainer.run()
    final = evaluate_loss(model, test, device)

    # Reconstructions of a few test digits from the posterior means, as a sanity check that
    # the code carries the image: their error is far below that of the mean image.
    x = np.asarray(test[:100])
    with chainer.using_config('train', False), chainer.no_backprop_mode():
        mean_z = encoder(device.send(x)).mean
        x_rec = chainer.backend.CpuDevice().send(decoder(mean_z, inference=True).array)
    rec_error = float(np.mean((x_rec - x) ** 2))
    baseline = float(np.mean((np.asarray(train).mean(axis=0) - x) ** 2))
    print(f'reconstruction mean squared error: {rec_error:.4f} (mean image: {baseline:.4f})')
    print(f'final test loss (negative ELBO): {final:.3f}')


if __name__ == '__main__':
    main()
