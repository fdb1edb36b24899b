//! (in progress: model.cfg reader, engineer 2)
