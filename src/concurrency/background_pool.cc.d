plugin/memrep/src/concurrency/background_pool.cc.d \
 plugin/memrep/src/concurrency/background_pool.o \
 plugin/memrep/src/concurrency/background_pool.o: \
 plugin/memrep/src/concurrency/background_pool.cc \
 plugin/memrep/src/concurrency/background_pool.h \
 plugin/memrep/src/concurrency/mutex.h
