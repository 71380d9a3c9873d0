"""The sampler's strategy and each exact draw, the random numbers, and the draw helpers they share."""
