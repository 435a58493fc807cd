"""Encoders: the encoder protocol, the hashing and MiniLM encoders, the ONNX encoder and
the cross-lingual bridge.
"""
