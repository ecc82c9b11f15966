//! Child processes and message framing shared by language servers, debug adapters and kernels.
//! (Being written.)
