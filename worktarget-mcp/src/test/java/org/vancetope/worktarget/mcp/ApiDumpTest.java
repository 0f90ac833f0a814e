package org.vancetope.worktarget.mcp;

import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.testfixtures.api.ApiCheck;

class ApiDumpTest {
    @Test
    void publicApiMatchesTheCommittedDump() throws Exception {
        ApiCheck.verifyModule("worktarget-mcp");
    }
}
