"""Execution: the drivers, the loop, the execution gate, outputs, policy, credentials,
results and the invokers.
"""
