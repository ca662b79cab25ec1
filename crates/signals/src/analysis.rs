//! Analysis (placeholder)
