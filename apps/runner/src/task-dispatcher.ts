/**
 * Holds the tasks the agent has taken and works on them: the tasks of one build in order, by
 * one worker at a time (reference §1.4: a build is never worked by two workers), at most
 * `concurrency` builds at once, at most `queueSize` tasks held so the poll loop knows when to
 * stop asking. A task the server hands out again while it is still held (its lease ran out) is
 * not taken twice.
 * @module
 */
import type { Task } from '@sluice/protocol';

export interface TaskDispatcherOptions {
  concurrency: number;
  queueSize: number;
  /** Carries out one task and reports it; must not throw. Or set later with `setRunner`. */
  run?: (task: Task) => Promise<void>;
  /** Called when the number of builds being worked changes. */
  onActiveChange?(active: number): void;
}

interface BuildQueue {
  key: string;
  tasks: Task[];
  running: boolean;
}

export class TaskDispatcher {
  readonly #options: TaskDispatcherOptions;
  #run: (task: Task) => Promise<void>;
  /** Builds with tasks held, in the order their first task arrived. */
  readonly #builds = new Map<string, BuildQueue>();
  readonly #heldIds = new Set<string>();
  #active = 0;
  readonly #idle: (() => void)[] = [];
  readonly #room: (() => void)[] = [];

  private constructor(options: TaskDispatcherOptions) {
    this.#options = options;
    this.#run = options.run ?? (() => Promise.reject(new Error('No task runner set')));
  }

  setRunner(run: (task: Task) => Promise<void>): void {
    this.#run = run;
  }

  static create(options: TaskDispatcherOptions): TaskDispatcher {
    return new TaskDispatcher(options);
  }

  /** Tasks held: waiting or being worked. */
  get held(): number {
    return this.#heldIds.size;
  }

  /** How many more tasks the agent may take now. */
  get room(): number {
    return Math.max(0, this.#options.queueSize - this.held);
  }

  /** Builds being worked on right now. */
  get active(): number {
    return this.#active;
  }

  /** Build ids with tasks held: the reaper leaves their objects alone. */
  busyBuilds(): Set<string> {
    return new Set(this.#builds.keys());
  }

  /** Takes tasks in the order given (the server's: creation time, then position in the build). */
  submit(tasks: readonly Task[]): number {
    let taken = 0;
    for (const task of tasks) {
      if (this.#heldIds.has(task.id)) continue;
      this.#heldIds.add(task.id);
      const key = task.buildId ?? `task:${task.id}`;
      let queue = this.#builds.get(key);
      if (queue === undefined) {
        queue = { key, tasks: [], running: false };
        this.#builds.set(key, queue);
      }
      queue.tasks.push(task);
      taken += 1;
    }
    this.#pump();
    return taken;
  }

  /** Resolves when there is room for at least one more task. */
  waitForRoom(signal?: AbortSignal): Promise<void> {
    if (this.room > 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.#room.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Resolves true when every held task is done, false if `timeoutMs` passes first. */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.held === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.#idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  #pump(): void {
    for (const queue of this.#builds.values()) {
      if (this.#active >= this.#options.concurrency) return;
      if (queue.running || queue.tasks.length === 0) continue;
      queue.running = true;
      this.#setActive(this.#active + 1);
      void this.#work(queue);
    }
  }

  async #work(queue: BuildQueue): Promise<void> {
    for (let task = queue.tasks.shift(); task !== undefined; task = queue.tasks.shift()) {
      try {
        await this.#run(task);
      } finally {
        this.#heldIds.delete(task.id);
        this.#notify(this.#room);
      }
    }
    queue.running = false;
    this.#builds.delete(queue.key);
    this.#setActive(this.#active - 1);
    if (this.held === 0) this.#notify(this.#idle);
    this.#pump();
  }

  #setActive(active: number): void {
    this.#active = active;
    this.#options.onActiveChange?.(active);
  }

  #notify(waiters: (() => void)[]): void {
    const all = waiters.splice(0);
    for (const wake of all) wake();
  }
}
