//! Writing a posed model as glTF binary or Wavefront OBJ.
