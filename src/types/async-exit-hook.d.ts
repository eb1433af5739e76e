declare module 'async-exit-hook' {
  type ExitHook = ((hook: (done: () => void) => void) => void) & {
    unhookEvent(event: string): void;
    hookedEvents(): string[];
  };
  const exitHook: ExitHook;
  export default exitHook;
}
