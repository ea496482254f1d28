# Lance REST Namespace adapter and Lance table semantics.
set(CAIRN_LANCE_SOURCES)
