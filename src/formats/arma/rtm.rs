//! (in progress: RTM/BMTR reader, engineer 1)
