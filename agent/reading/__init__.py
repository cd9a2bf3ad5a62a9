"""Hop reading: one answer per hop, read from the units and sentences the hop retrieved.

`typed_hop.read` retrieves for a hop and reads it: a yes/no hop by the polarity of the sentence
that writes its claim (`yes_no`), any other by the ranked candidates of `hop_answer.read_hop`.
"""
