# FileIO layer: the interface, the local (POSIX) implementation and the test doubles.
set(CAIRN_IO_SOURCES
  io/file_io.cc
  io/local_file_io.cc
  io/memory_file_io.cc
)
