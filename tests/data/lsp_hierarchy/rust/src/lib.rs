pub mod basics;
pub mod pipeline;
