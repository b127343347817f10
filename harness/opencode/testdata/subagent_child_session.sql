-- A task run as a child session (session.parent_id, FORMATS.md §4.4): a
-- subagent linked to the session that spawned it.
INSERT INTO session VALUES ('ses_C1', 'prj_1', NULL, 'parent', '/home/dev/proj', 'Refactor', '1.2.25', NULL, 1774893435268, 1774893435999, NULL, NULL);
INSERT INTO session VALUES ('ses_C2', 'prj_1', 'ses_C1', 'child', '/home/dev/proj', 'Find TODOs (@explore subagent)', '1.2.25', NULL, 1774893435500, 1774893435900, NULL, NULL);
INSERT INTO message VALUES ('msg_C1u', 'ses_C1', 1774893435275, 1774893435275, '{"role":"user","time":{"created":1774893435275}}');
INSERT INTO part VALUES ('prt_C1u1', 'msg_C1u', 'ses_C1', 1774893435275, 1774893435275, '{"type":"text","text":"Refactor the parser and list the TODOs."}');
INSERT INTO message VALUES ('msg_C1a', 'ses_C1', 1774893435300, 1774893435999, '{"role":"assistant","time":{"created":1774893435300}}');
INSERT INTO part VALUES ('prt_C1a1', 'msg_C1a', 'ses_C1', 1774893435300, 1774893435300, '{"type":"tool","tool":"task","state":{"status":"completed","input":{"description":"Find TODOs","prompt":"List every TODO"},"output":"SUBAGENT-RESULT"}}');
INSERT INTO part VALUES ('prt_C1a2', 'msg_C1a', 'ses_C1', 1774893435990, 1774893435990, '{"type":"text","text":"There are three TODOs."}');
INSERT INTO message VALUES ('msg_C2u', 'ses_C2', 1774893435501, 1774893435501, '{"role":"user","time":{"created":1774893435501}}');
INSERT INTO part VALUES ('prt_C2u1', 'msg_C2u', 'ses_C2', 1774893435501, 1774893435501, '{"type":"text","text":"List every TODO"}');
INSERT INTO message VALUES ('msg_C2a', 'ses_C2', 1774893435600, 1774893435900, '{"role":"assistant","time":{"created":1774893435600}}');
INSERT INTO part VALUES ('prt_C2a1', 'msg_C2a', 'ses_C2', 1774893435600, 1774893435600, '{"type":"tool","tool":"grep","state":{"status":"completed","input":{"pattern":"TODO","path":"/home/dev/proj"},"output":"a.go:1: TODO"}}');
INSERT INTO part VALUES ('prt_C2a2', 'msg_C2a', 'ses_C2', 1774893435800, 1774893435800, '{"type":"text","text":"Three TODOs: a.go, b.go, c.go."}');
