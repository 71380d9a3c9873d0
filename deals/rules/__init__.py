"""The compiled rules of a scenario, the independent predicate, why a scenario has no deals, and which constraint fields each consumer handles."""
