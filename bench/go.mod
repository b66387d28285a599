module github.com/revoltgo/eventloop/bench

go 1.26.0

require (
	github.com/dop251/goja v0.0.0-20260917113740-793a2a65c13b
	github.com/dop251/goja_nodejs v0.0.0-20260212111938-1f56ff5bcf14
	github.com/gorilla/websocket v1.5.3
	github.com/lesismal/llib v1.2.2
	github.com/lesismal/nbio v1.6.8
	github.com/lxzan/gws v1.8.9
	github.com/panjf2000/gnet/v2 v2.9.7
	github.com/revoltgo/eventloop v0.0.0
	github.com/tidwall/evio v1.0.8
	github.com/valyala/fasthttp v1.78.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/dlclark/regexp2/v2 v2.5.2 // indirect
	github.com/dolthub/maphash v0.1.0 // indirect
	github.com/go-sourcemap/sourcemap v2.1.4+incompatible // indirect
	github.com/google/pprof v0.0.0-20240727154555-813a5fbdbec8 // indirect
	github.com/kavu/go_reuseport v1.5.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/molecule-man/go-brrr v1.3.1 // indirect
	github.com/panjf2000/ants/v2 v2.11.3 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.uber.org/zap v1.27.0 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	gopkg.in/natefinch/lumberjack.v2 v2.2.1 // indirect
)

replace github.com/revoltgo/eventloop => ../
