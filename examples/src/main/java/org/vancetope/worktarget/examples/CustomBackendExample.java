package org.vancetope.worktarget.examples;

import java.util.Map;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/**
 * Runs a wrapper tool against a custom backend found by {@code ServiceLoader}
 * ({@link GreetingBackend}).
 */
public final class CustomBackendExample {
    private CustomBackendExample() {
    }

    /**
     * Runs the example.
     *
     * @param args ignored
     * @throws ToolException if the call fails
     */
    public static void main(String[] args) throws ToolException {
        InMemoryProcessStore processes = new InMemoryProcessStore();
        processes.process("agent-1").tenant("acme").project("proj").add();
        WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder()
                .processStore(processes)
                .discoverBackends()
                .build();
        Map<String, Object> result = dispatcher.invoke("agent-1", "file_read", Map.of("path", "hello.txt"));
        System.out.println(Print.json(result));
    }
}
