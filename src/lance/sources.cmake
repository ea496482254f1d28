# Lance REST Namespace adapter and Lance table semantics.
set(CAIRN_LANCE_SOURCES
  catalog/lance_service.cc
  lance/dataset.cc
  lance/rest/handlers.cc
  lance/rest/json_serde.cc
  lance/rest/request_util.cc
  lance/rest/routes.cc
)
