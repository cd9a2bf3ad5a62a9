"""Answering: the short answer, from the buffer's passages or from the hops' own answers.

`answer.answer_from_passages` ranks candidates (`candidates`, `options` for a choice between
named alternatives) or asks the model to pick one; `hop_compute` answers comparisons and
intersections from the hops' answers; `repetition` cuts a reply that starts repeating itself.
"""
