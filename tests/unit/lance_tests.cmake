# Unit tests of the Lance REST Namespace adapter.
set(CAIRN_LANCE_TESTS)
