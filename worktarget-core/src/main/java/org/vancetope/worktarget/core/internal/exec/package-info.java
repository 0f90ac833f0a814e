/**
 * The exec engine shared by the CLIENT and WORK backends: jobs run as {@code /bin/sh -c} in their own
 * session, output streamed to files with a bounded in-memory head and tail, HEAD_TAIL rendering,
 * process-tree kill (kill, deadline, close), the optional isolation wrapper, and the binding of the
 * engine to the four {@code *_exec_*} backend tools. Not API. The engine is split by idea; {@link ExecEngine}
 * names the parts.
 *
 * <pre>{@code
 * ExecEngine engine = ExecEngine.builder()
 *         .isolation(Isolation.fromConfig(mode, wrapper, System::getenv))
 *         .build();
 * List<BackendTool> tools = ExecTools.create(engine, ToolCatalog.WORK_PREFIX,
 *         ExecResolvers.work(roots, homes, ExecEnvPolicy.work(System.getenv())));
 * // when a RootDir is disposed:  engine.closeRoot(rootDir);
 * // when a session closes:       engine.closeScope(ExecResolver.defaultScope(ctx));
 * }</pre>
 */
package org.vancetope.worktarget.core.internal.exec;
