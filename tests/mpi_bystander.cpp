// An MPI program that is not pplab: it starts MPI and waits (at most a minute), as another
// program sharing an mpirun job with pplab would. The start handshake must not wait for it.
#include <mpi.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  sleep(60);
  MPI_Finalize();
  return 0;
}
