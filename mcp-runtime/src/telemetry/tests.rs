//! The trace context read from `params._meta`, and the spans' names and attributes.
