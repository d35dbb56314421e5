"""The facade's engine: symbolic tensors, nodes, layers, and graph building."""
