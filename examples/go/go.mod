module memrep.example/go

go 1.22

require github.com/linxGnu/grocksdb v1.11.1
