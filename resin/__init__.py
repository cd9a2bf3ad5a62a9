"""resin: hop-wise multi-hop question answering over your own documents."""
