curl 'http://127.0.0.1:8080/post?source=browser' \
  -H 'accept: application/json' \
  -H 'content-type: application/json' \
  -H $'x-note: it\'s copied' \
  --data-raw $'{"name":"curlew","tags":["http","timing"]}' \
  --compressed
