/*
 * The pod sandbox's first process (the "pause" container): it holds the pod's namespaces open,
 * reaps children that get reparented to it, and exits cleanly on SIGINT or SIGTERM.
 * Built static (gcc -static), so the image holds this one file.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_stop(int signo) {
  (void)signo;
  _exit(0);
}

static void on_child(int signo) {
  (void)signo;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

static void handle(int signo, void (*handler)(int), int flags) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  action.sa_flags = flags;
  if (sigaction(signo, &action, NULL) < 0) {
    perror("sigaction");
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "-v") == 0) {
    puts("sluice pause 1");
    return 0;
  }
  if (getpid() != 1) fputs("pause: warning: not running as PID 1\n", stderr);
  handle(SIGINT, on_stop, 0);
  handle(SIGTERM, on_stop, 0);
  handle(SIGCHLD, on_child, SA_NOCLDSTOP);
  for (;;) pause();
}
