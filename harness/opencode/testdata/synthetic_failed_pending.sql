-- Text OpenCode wrote itself (synthetic, O17), an ignored part, and tool
-- parts that failed, never ran or were cut off mid-run (O17 keeps bash
-- parts "running" from an interrupted session); a patch tool's headers.
INSERT INTO session VALUES ('ses_B1', 'global', NULL, 'calm-river', '/home/build', 'Deploy', '1.17.3', NULL, 1781746643325, 1781746875590, NULL, NULL);
INSERT INTO message VALUES ('msg_B1u', 'ses_B1', 1781746643382, 1781746643382, '{"role":"user","time":{"created":1781746643382},"agent":"build"}');
INSERT INTO part VALUES ('prt_B1u1', 'msg_B1u', 'ses_B1', 1781746643382, 1781746643382, '{"type":"text","text":"Add a Flask server."}');
INSERT INTO part VALUES ('prt_B1u2', 'msg_B1u', 'ses_B1', 1781746643383, 1781746643383, '{"type":"text","text":"IGNORED-TEXT","ignored":true}');
INSERT INTO message VALUES ('msg_B1s', 'ses_B1', 1781746650000, 1781746650000, '{"role":"user","time":{"created":1781746650000}}');
INSERT INTO part VALUES ('prt_B1s1', 'msg_B1s', 'ses_B1', 1781746650000, 1781746650000, '{"type":"text","text":"The following tool was executed by the user","synthetic":true}');
INSERT INTO message VALUES ('msg_B1a', 'ses_B1', 1781746651000, 1781746660000, '{"role":"assistant","time":{"created":1781746651000}}');
INSERT INTO part VALUES ('prt_B1a1', 'msg_B1a', 'ses_B1', 1781746651100, 1781746651100, '{"type":"tool","tool":"edit","state":{"status":"error","input":{"filePath":"/home/build/missing.py","oldString":"a","newString":"b"},"error":"File not found"}}');
INSERT INTO part VALUES ('prt_B1a2', 'msg_B1a', 'ses_B1', 1781746651200, 1781746651200, '{"type":"tool","tool":"bash","state":{"status":"pending","input":{}}}');
INSERT INTO part VALUES ('prt_B1a3', 'msg_B1a', 'ses_B1', 1781746651300, 1781746651300, '{"type":"tool","tool":"bash","state":{"status":"running","input":{"command":"python3 server.py","description":"Start"},"time":{"start":1781746651300}}}');
INSERT INTO part VALUES ('prt_B1a4', 'msg_B1a', 'ses_B1', 1781746651400, 1781746651400, '{"type":"tool","tool":"patch","state":{"status":"completed","input":{"patchText":"*** Begin Patch\n*** Add File: /home/build/server.py\n+print(1)\n*** Update File: Procfile\n*** Move to: deploy/Procfile\n*** Delete File: old.txt\n*** End Patch"},"output":"ok"}}');
INSERT INTO part VALUES ('prt_B1a5', 'msg_B1a', 'ses_B1', 1781746651500, 1781746651500, '{"type":"tool","tool":"question","state":{"status":"running","input":{"questions":["Which port?"]}}}');
