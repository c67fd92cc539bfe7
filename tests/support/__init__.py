"""Helpers shared by the test suites: real processes (a broker) started on loopback."""
