//! Scenario tests (filled next).
