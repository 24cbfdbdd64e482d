//! files promises (the driver lands separately).

pub mod edit;
