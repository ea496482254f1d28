set(CAIRN_IO_TESTS
  unit/file_io_test.cc
  unit/location_test.cc
  unit/s3_file_io_test.cc
  unit/s3_location_test.cc
  unit/s3_session_policy_test.cc
  unit/s3_xml_test.cc
)
