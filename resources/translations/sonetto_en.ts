<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="en" sourcelanguage="zh_CN">
<context>
    <name>CardDelegate</name>
    <message>
        <location filename="../../sonetto_desktop/ui/card_delegate.py" line="147" />
        <source>命中 {0}</source>
        <translation>Hits: {0}</translation>
    </message>
</context>
<context>
    <name>ChatController</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_controller.py" line="149" />
        <source>重命名失败：</source>
        <translation>Rename failed: </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_controller.py" line="211" />
        <source>已停止</source>
        <translation>Stopped</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_controller.py" line="215" />
        <source>出错了：</source>
        <translation>Something went wrong: </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_controller.py" line="218" />
        <source>回复意外中断了。</source>
        <translation>The reply stopped unexpectedly.</translation>
    </message>
</context>
<context>
    <name>ChatPanel</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="84" />
        <source>对话</source>
        <translation>Chats</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="87" />
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="147" />
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="229" />
        <source>新对话</source>
        <translation>New chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="88" />
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="232" />
        <source>重命名</source>
        <translation>Rename</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="89" />
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="212" />
        <source>删除对话</source>
        <translation>Delete chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="90" />
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="233" />
        <source>导出为 Markdown…</source>
        <translation>Export as Markdown…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="97" />
        <source>没有找到</source>
        <translation>No matches</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="183" />
        <source>对话操作失败：{0}</source>
        <translation>Chat operation failed: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="213" />
        <source>删除对话“%1”？聊天记录会被删除，已经记住的记忆不受影响。</source>
        <translation>Delete the chat “%1”? Its messages are deleted; memories already kept stay.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="234" />
        <source>删除</source>
        <translation>Delete</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="245" />
        <source>导出对话</source>
        <translation>Export chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_panel.py" line="245" />
        <source>Markdown 文件 (*.md)</source>
        <translation>Markdown files (*.md)</translation>
    </message>
</context>
<context>
    <name>ChatSearchBox</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_search_box.py" line="28" />
        <source>搜索所有对话…</source>
        <translation>Search all chats…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_search_box.py" line="29" />
        <source>搜索所有对话</source>
        <translation>Search all chats</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_search_box.py" line="58" />
        <source>搜索失败：{0}</source>
        <translation>Search failed: {0}</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat_view.py" line="48" />
        <source>嗨，我是 Sonetto。
想聊什么都可以——我会记住对你重要的事。</source>
        <translation>Hi, I'm Sonetto.
Talk about anything — I'll remember what matters to you.</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <location filename="../../sonetto_desktop/ui/composer.py" line="29" />
        <source>和 Sonetto 说点什么…（Enter 发送，Shift+Enter 换行）</source>
        <translation>Talk to Sonetto… (Enter to send, Shift+Enter: new line)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/composer.py" line="41" />
        <source>发送 (Enter)</source>
        <translation>Send (Enter)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/composer.py" line="47" />
        <source>停止回复</source>
        <translation>Stop the reply</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/composer.py" line="61" />
        <source>正在编辑一条消息：发送后会替换它和之后的对话</source>
        <translation>Editing a message: sending replaces it and everything after it</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/composer.py" line="65" />
        <source>取消编辑</source>
        <translation>Cancel editing</translation>
    </message>
</context>
<context>
    <name>Conversation</name>
    <message>
        <location filename="../../sonetto_desktop/ui/conversation.py" line="48" />
        <source>正在使用工具：%1…</source>
        <translation>Using a tool: %1…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/conversation.py" line="51" />
        <source>用过工具：%1</source>
        <translation>Used a tool: %1</translation>
    </message>
</context>
<context>
    <name>EditDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/edit_dialog.py" line="58" />
        <source>新建记忆</source>
        <translation>New memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/edit_dialog.py" line="58" />
        <source>编辑记忆</source>
        <translation>Edit memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/edit_dialog.py" line="65" />
        <source>关于你的一件事，例如：喜欢手冲咖啡，不加糖</source>
        <translation>Something about you, e.g.: likes pour-over coffee, no sugar</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/edit_dialog.py" line="70" />
        <source>主题，例如：品味、工作、家人</source>
        <translation>Theme, e.g.: taste, work, family</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/edit_dialog.py" line="74" />
        <source>为什么这样改（可选，会记入历史）</source>
        <translation>Why this change (optional, kept in the history)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/edit_dialog.py" line="80" />
        <source>内容</source>
        <translation>Text</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/edit_dialog.py" line="81" />
        <source>主题</source>
        <translation>Theme</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/edit_dialog.py" line="82" />
        <source>原因</source>
        <translation>Reason</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/edit_dialog.py" line="104" />
        <source>内容不能为空。</source>
        <translation>The text cannot be empty.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/edit_dialog.py" line="106" />
        <source>主题不能为空。</source>
        <translation>The theme cannot be empty.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/edit_dialog.py" line="108" />
        <source>还没有改动。</source>
        <translation>Nothing has changed yet.</translation>
    </message>
</context>
<context>
    <name>HistoryDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="77" />
        <source>{0}（{1}）</source>
        <translation>{0} ({1})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="99" />
        <source>记忆的历史</source>
        <translation>Memory history</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="106" />
        <source>加载中…</source>
        <translation>Loading…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="122" />
        <source>恢复的原因</source>
        <translation>Reason for restoring</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="123" />
        <source>恢复为此版本</source>
        <translation>Restore this version</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="155" />
        <source>这条记忆已不存在（可能被删除或合并）。</source>
        <translation>This memory no longer exists (it may have been deleted or merged).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="163" />
        <source>当前：{0}（{1}）</source>
        <translation>Now: {0} ({1})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="192" />
        <source>智能体</source>
        <translation>Sonetto</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="192" />
        <source>你</source>
        <translation>You</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="196" />
        <source>创建</source>
        <translation>Added</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="197" />
        <source>修改</source>
        <translation>Edited</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="198" />
        <source>合并</source>
        <translation>Merged</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="199" />
        <source>恢复旧版本</source>
        <translation>Reverted</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="200" />
        <source>从回收站恢复</source>
        <translation>Restored</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="207" />
        <source>最初的版本</source>
        <translation>The first version</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="212" />
        <source> · 来自被合并的记忆</source>
        <translation> · from a merged memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="234" />
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="243" />
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="245" />
        <source>主题：{0}</source>
        <translation>Theme: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="239" />
        <source>修改前 → 修改后</source>
        <translation>Before → after</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="247" />
        <source>并入的记忆：{0}</source>
        <translation>Merged-in memory: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="250" />
        <source>原因：{0}</source>
        <translation>Reason: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/history_dialog.py" line="264" />
        <source>恢复的原因（必填）</source>
        <translation>Reason for restoring (required)</translation>
    </message>
</context>
<context>
    <name>Language</name>
    <message>
        <location filename="../../sonetto_desktop/ui/i18n.py" line="57" />
        <source>zh</source>
        <translation>en</translation>
    </message>
</context>
<context>
    <name>LinkConfirm</name>
    <message>
        <location filename="../../sonetto_desktop/ui/link_confirm.py" line="22" />
        <source>打开链接</source>
        <translation>Open link</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/link_confirm.py" line="23" />
        <source>在浏览器中打开这个链接？</source>
        <translation>Open this link in your browser?</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../sonetto_desktop/ui/main_window.py" line="40" />
        <source>Sonetto · 记忆伙伴</source>
        <translation>Sonetto · a companion who remembers</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/main_window.py" line="97" />
        <source>设置</source>
        <translation>Settings</translation>
    </message>
</context>
<context>
    <name>MemoryService</name>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_service.py" line="34" />
        <source>找不到这条记忆，它可能已被删除或移动。</source>
        <translation>This memory can't be found; it may have been deleted or moved.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_service.py" line="36" />
        <source>记忆库文件无法读取，没有做任何修改：{0}</source>
        <translation>The memory store file can't be read, so nothing was changed: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_service.py" line="39" />
        <source>输入无效：{0}</source>
        <translation>Invalid input: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_service.py" line="41" />
        <source>记忆库出错：{0}</source>
        <translation>Memory store error: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_service.py" line="42" />
        <source>操作失败：{0}</source>
        <translation>The operation failed: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_service.py" line="124" />
        <source>手动添加</source>
        <translation>Added by hand</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_service.py" line="131" />
        <source>手动编辑</source>
        <translation>Edited by hand</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_service.py" line="137" />
        <source>拖动到「{0}」</source>
        <translation>Dragged to “{0}”</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_service.py" line="144" />
        <source>手动合并</source>
        <translation>Merged by hand</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_service.py" line="148" />
        <source>手动删除</source>
        <translation>Deleted by hand</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_service.py" line="156" />
        <source>恢复旧版本</source>
        <translation>Restored an old version</translation>
    </message>
</context>
<context>
    <name>MemoryWall</name>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_wall.py" line="118" />
        <source>搜索记忆…</source>
        <translation>Search memories…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_wall.py" line="125" />
        <source>最近更新</source>
        <translation>Recently changed</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_wall.py" line="126" />
        <source>命中最多</source>
        <translation>Most used</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_wall.py" line="135" />
        <source>新建</source>
        <translation>New</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_wall.py" line="136" />
        <source>新建一条记忆</source>
        <translation>Add a memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_wall.py" line="142" />
        <source>回收站</source>
        <translation>Trash</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_wall.py" line="214" />
        <source>记忆库暂时无法读取，卡片墙是空的；没有任何内容被改动。</source>
        <translation>The memory store cannot be read right now, so the wall is empty; nothing was changed.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_wall.py" line="216" />
        <source>还没有记忆。和 Sonetto 聊聊，或点「新建」写下一条。</source>
        <translation>No memories yet. Chat with Sonetto, or click “New” to write one.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_wall.py" line="218" />
        <source>没有和「{0}」匹配的记忆。</source>
        <translation>No memory matches “{0}”.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_wall.py" line="226" />
        <source>{0} / {1} 条</source>
        <translation>{0} / {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/memory_wall.py" line="228" />
        <source>{0} 条</source>
        <translation>{0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall_actions.py" line="124" />
        <source>这条记忆已经不在了（可能刚被删除或合并）。可以把你写的内容另存为一条新记忆。</source>
        <translation>This memory is gone (it may have just been deleted or merged). You can save what you wrote as a new memory.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall_actions.py" line="175" />
        <source>已删除：{0}</source>
        <translation>Deleted: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall_actions.py" line="177" />
        <source>已删除 {0} 条记忆</source>
        <translation>Deleted {0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall_actions.py" line="181" />
        <source>撤销</source>
        <translation>Undo</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall_actions.py" line="217" />
        <source>拖动到「{0}」</source>
        <translation>Dragged to “{0}”</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall_actions.py" line="232" />
        <source>删除</source>
        <translation>Delete</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall_actions.py" line="234" />
        <source>删除 {0} 条</source>
        <translation>Delete {0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall_actions.py" line="236" />
        <source>编辑</source>
        <translation>Edit</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall_actions.py" line="237" />
        <source>历史</source>
        <translation>History</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall_actions.py" line="239" />
        <source>与…合并</source>
        <translation>Merge with…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall_actions.py" line="243" />
        <source>复制</source>
        <translation>Copy</translation>
    </message>
</context>
<context>
    <name>MergeDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/merge_dialog.py" line="39" />
        <source>{0}（{1}）</source>
        <translation>{0} ({1})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/merge_dialog.py" line="56" />
        <source>合并记忆</source>
        <translation>Merge memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/merge_dialog.py" line="79" />
        <source>合并重复的记忆</source>
        <translation>Merge duplicate memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/merge_dialog.py" line="83" />
        <source>保留</source>
        <translation>Keep</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/merge_dialog.py" line="84" />
        <source>并入</source>
        <translation>Merge in</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/merge_dialog.py" line="85" />
        <source>合并后</source>
        <translation>Merged</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/merge_dialog.py" line="86" />
        <source>主题</source>
        <translation>Theme</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/merge_dialog.py" line="87" />
        <source>原因</source>
        <translation>Reason</translation>
    </message>
</context>
<context>
    <name>MessageBubble</name>
    <message>
        <location filename="../../sonetto_desktop/ui/message_bubble.py" line="99" />
        <source>重试</source>
        <translation>Retry</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/message_bubble.py" line="126" />
        <source>复制</source>
        <translation>Copy</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/message_bubble.py" line="129" />
        <source>编辑后重新发送</source>
        <translation>Edit and send again</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/message_bubble.py" line="132" />
        <source>重新生成</source>
        <translation>Regenerate</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/message_bubble.py" line="214" />
        <source>思考中…</source>
        <translation>Thinking…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/message_bubble.py" line="262" />
        <source>已停止</source>
        <translation>Stopped</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/message_bubble.py" line="238" />
        <source>{0}：{1}</source>
        <translation>{0}: {1}</translation>
    </message>
</context>
<context>
    <name>PostgresPage</name>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="37" />
        <source>在几台电脑上使用同一份记忆：记忆保存在你指定的 PostgreSQL 服务器上（家里 NAS 上的 Docker、或托管的云数据库），每台电脑上的改动会立刻出现在其他电脑上。注意：记忆将存放在该服务器上，请只使用你信任的服务器。</source>
        <translation>One memory on several computers: the memories live on a PostgreSQL server you choose (Docker on a home NAS, or a hosted database), and a change on one computer appears on the others at once. Note: your memories are then stored on that server; use only a server you trust.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="47" />
        <source>保存在系统钥匙串中，不写进设置文件</source>
        <translation>Kept in the system keyring, never in the settings file</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="49" />
        <source>自动（服务器支持就加密）</source>
        <translation>Automatic (encrypt when the server can)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="49" />
        <source>必须加密</source>
        <translation>Always encrypt</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="50" />
        <source>加密并校验服务器证书</source>
        <translation>Encrypt and verify the server certificate</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="50" />
        <source>不加密（仅限本机/内网）</source>
        <translation>No encryption (this computer / home network only)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="54" />
        <source>同一个数据库里可以放几个人的记忆，各用一个名字（小写字母、数字、下划线）。</source>
        <translation>One database can hold several people's memories, each under its own name (lower-case letters, digits, underscores).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="57" />
        <source>聊天记录也保存在服务器上（换一台电脑可以接着聊）</source>
        <translation>Keep the chats on the server too (continue a conversation on another computer)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="58" />
        <source>测试服务器连接</source>
        <translation>Test the server connection</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="67" />
        <source>在“记忆”页把存储方式选为 PostgreSQL 后保存即可。服务器上还没有记忆时，本机的记忆（含历史和回收站）会完整迁移过去；以后切换回本地存储时，服务器上的记忆会复制回本机（服务器上的仍然保留）。服务器连不上时，应用用本机副本只读打开，聊天照常，新记忆等服务器恢复后自动写入。</source>
        <translation>Choose PostgreSQL as the storage on the Memory page and save. If the server holds no memories yet, this computer's memories (with their history and the trash) move there in full; switching back to local storage later copies the server's memories back to this computer (the server keeps its copy). When the server cannot be reached, the app opens read-only from this computer's copy; chatting goes on, and new memories are written once the server is back.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="74" />
        <source>服务器地址</source>
        <translation>Server URL</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="75" />
        <source>密码</source>
        <translation>Password</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="76" />
        <source>加密（TLS）</source>
        <translation>Encryption (TLS)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="77" />
        <source>记忆库名称</source>
        <translation>Memory library name</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="78" />
        <source>本机名称</source>
        <translation>This computer's name</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="84" />
        <source>多设备</source>
        <translation>Several computers</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="88" />
        <source>PostgreSQL（多设备）</source>
        <translation>PostgreSQL (several computers)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="99" />
        <source>由环境变量 SONETTO_POSTGRES_URL 设置</source>
        <translation>Set by the environment variable SONETTO_POSTGRES_URL</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/postgres_page.py" line="125" />
        <source>正在连接…</source>
        <translation>Connecting…</translation>
    </message>
</context>
<context>
    <name>QuickChat</name>
    <message>
        <location filename="../../sonetto_desktop/ui/quick_chat.py" line="44" />
        <location filename="../../sonetto_desktop/ui/quick_chat.py" line="56" />
        <source>快速对话</source>
        <translation>Quick chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/quick_chat.py" line="62" />
        <source>关闭 (Esc)</source>
        <translation>Close (Esc)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/quick_chat.py" line="96" />
        <source>新对话</source>
        <translation>New chat</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="49" />
        <source>设置</source>
        <translation>Settings</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="57" />
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="105" />
        <source>模型</source>
        <translation>Model</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="58" />
        <source>记忆</source>
        <translation>Memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="61" />
        <source>外观</source>
        <translation>Appearance</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="66" />
        <source>保存</source>
        <translation>Save</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="67" />
        <source>取消</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="85" />
        <source>本地模型可以留空</source>
        <translation>Leave empty for local models</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="94" />
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="120" />
        <source> 秒</source>
        <translation> s</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="95" />
        <source>测试连接</source>
        <translation>Test connection</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="103" />
        <source>服务地址</source>
        <translation>Endpoint URL</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="104" />
        <source>API 密钥</source>
        <translation>API key</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="106" />
        <source>温度</source>
        <translation>Temperature</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="107" />
        <source>请求超时</source>
        <translation>Request timeout</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="115" />
        <source>混合（推荐）</source>
        <translation>Hybrid (recommended)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="115" />
        <source>本地检索（快，不用模型）</source>
        <translation>Local search (fast, no model)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="116" />
        <source>模型检索</source>
        <translation>Model search</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="122" />
        <source>YAML 文件（可直接阅读）</source>
        <translation>YAML file (human-readable)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="123" />
        <source>SQLite 数据库（记忆很多时更快）</source>
        <translation>SQLite database (faster with many memories)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="125" />
        <source>切换后会把现有记忆（含历史和回收站）完整迁移过去，旧文件保留。</source>
        <translation>Switching moves every memory (with history and trash) to the new store; the old file is kept.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="129" />
        <source>选择…</source>
        <translation>Choose…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="131" />
        <source>打开数据文件夹</source>
        <translation>Open data folder</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="136" />
        <source>回忆方式</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="137" />
        <source>回忆超时</source>
        <translation>Recall timeout</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="138" />
        <source>存储方式</source>
        <translation>Storage</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="140" />
        <source>数据文件夹</source>
        <translation>Data folder</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="148" />
        <source>跟随系统</source>
        <translation>Follow the system</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="148" />
        <source>浅色</source>
        <translation>Light</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="148" />
        <source>深色</source>
        <translation>Dark</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="153" />
        <source>界面语言在重新启动后生效。</source>
        <translation>The language changes after a restart.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="155" />
        <source>主题</source>
        <translation>Theme</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="156" />
        <source>语言</source>
        <translation>Language</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="186" />
        <source>由环境变量 %1 设置</source>
        <translation>Set by the environment variable %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="221" />
        <source>无法保存设置：</source>
        <translation>Cannot save the settings: </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="235" />
        <source>正在连接…</source>
        <translation>Connecting…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="243" />
        <source>（{0} ms）</source>
        <translation> ({0} ms)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings_dialog.py" line="253" />
        <source>选择数据文件夹</source>
        <translation>Choose the data folder</translation>
    </message>
</context>
<context>
    <name>SonettoApp</name>
    <message>
        <location filename="../../sonetto_desktop/ui/shell.py" line="197" />
        <source>对话功能启动失败：%1。记忆墙仍可使用；请检查数据目录后重启。</source>
        <translation>Chat could not start: %1. The memory wall still works; check the data folder, then restart.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/shell.py" line="279" />
        <source>语言</source>
        <translation>Language</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/shell.py" line="280" />
        <source>界面语言将在重新启动后切换。</source>
        <translation>The interface language changes after a restart.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/shell.py" line="269" />
        <source>无法使用新的数据文件夹 {0}：{1}。仍在使用原来的记忆库。</source>
        <translation>Cannot use the new data folder {0}: {1}. Still using the previous memory store.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/store_problem.py" line="17" />
        <source>记忆库文件无法读取，为了不丢失任何内容，Sonetto 不会写入它。</source>
        <translation>The memory store cannot be read. So that nothing is lost, Sonetto will not write to it.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/store_problem.py" line="18" />
        <source>记忆库有问题</source>
        <translation>Problem with the memory store</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/store_problem.py" line="20" />
        <source>可以在数据文件夹里用备份（.bak）恢复，然后重新启动。</source>
        <translation>You can restore it from the backup (.bak) in the data folder, then restart.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/store_problem.py" line="22" />
        <source>打开数据文件夹</source>
        <translation>Open data folder</translation>
    </message>
</context>
<context>
    <name>StartProblems</name>
    <message>
        <location filename="../../sonetto_desktop/ui/start_problems.py" line="25" />
        <source>无法打开记忆库</source>
        <translation>Can't open the memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/start_problems.py" line="25" />
        <source>Sonetto 无法使用这个数据文件夹，没有读写任何内容。</source>
        <translation>Sonetto can't use this data folder; nothing was read or written.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/start_problems.py" line="29" />
        <source>选择其他文件夹…</source>
        <translation>Choose another folder…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/start_problems.py" line="30" />
        <source>退出</source>
        <translation>Quit</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/start_problems.py" line="37" />
        <source>选择数据文件夹</source>
        <translation>Choose the data folder</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/start_problems.py" line="49" />
        <source>切换存储方式没有完成</source>
        <translation>Switching the storage did not finish</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/start_problems.py" line="50" />
        <source>你的记忆都还在：Sonetto 打开的是仍然完整的那个记忆库。</source>
        <translation>Your memories are all there: Sonetto opened the store that is still complete.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/start_problems.py" line="52" />
        <source>打开数据文件夹</source>
        <translation>Open data folder</translation>
    </message>
</context>
<context>
    <name>StatusIndicator</name>
    <message>
        <location filename="../../sonetto_desktop/ui/status_indicator.py" line="98" />
        <source>记忆写入未启动</source>
        <translation>Memory writer not started</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/status_indicator.py" line="103" />
        <source>记忆写入已暂停 (%1)</source>
        <translation>Memory writing paused (%1)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/status_indicator.py" line="105" />
        <source>整理记忆中 (%1)</source>
        <translation>Organising memories (%1)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/status_indicator.py" line="110" />
        <source>记忆写入出错：%1</source>
        <translation>Memory writing failed: %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/status_indicator.py" line="112" />
        <source>记忆已是最新</source>
        <translation>Memories are up to date</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/status_indicator.py" line="115" />
        <source>继续记忆写入</source>
        <translation>Resume memory writing</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/status_indicator.py" line="115" />
        <source>暂停记忆写入</source>
        <translation>Pause memory writing</translation>
    </message>
</context>
<context>
    <name>StoreBanner</name>
    <message>
        <location filename="../../sonetto_desktop/ui/store_banner.py" line="35" />
        <source>记忆服务器暂时连不上：现在显示的是本机副本（{0}），只能查看、不能修改。聊天照常，新的记忆会在服务器恢复后自动写入。</source>
        <translation>The memory server can't be reached: showing this computer's copy ({0}), read-only. Chatting goes on; new memories are written once the server is back.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/store_banner.py" line="38" />
        <source>记忆服务器暂时连不上，本机还没有副本：记忆暂时为空、只能查看。聊天照常，新的记忆会在服务器恢复后自动写入。</source>
        <translation>The memory server can't be reached and this computer has no copy yet: no memories to show for now. Chatting goes on; new memories are written once the server is back.</translation>
    </message>
</context>
<context>
    <name>Toast</name>
    <message>
        <location filename="../../sonetto_desktop/ui/toasts.py" line="94" />
        <source>关闭</source>
        <translation>Close</translation>
    </message>
</context>
<context>
    <name>TrashDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/trash_dialog.py" line="39" />
        <source>回收站</source>
        <translation>Trash</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/trash_dialog.py" line="44" />
        <source>加载中…</source>
        <translation>Loading…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/trash_dialog.py" line="49" />
        <source>恢复</source>
        <translation>Restore</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/trash_dialog.py" line="51" />
        <source>永久删除</source>
        <translation>Delete for good</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/trash_dialog.py" line="53" />
        <location filename="../../sonetto_desktop/ui/trash_dialog.py" line="127" />
        <source>清空回收站</source>
        <translation>Empty the trash</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/trash_dialog.py" line="95" />
        <source>回收站是空的。</source>
        <translation>The trash is empty.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/trash_dialog.py" line="95" />
        <source>{0} 条已删除的记忆</source>
        <translation>Deleted memories: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/trash_dialog.py" line="128" />
        <source>永久删除回收站里的全部记忆？此操作无法撤销。</source>
        <translation>Delete every memory in the trash for good? This cannot be undone.</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <location filename="../../sonetto_desktop/ui/tray.py" line="29" />
        <source>打开主窗口</source>
        <translation>Open main window</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/tray.py" line="31" />
        <source>快速对话</source>
        <translation>Quick chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/tray.py" line="36" />
        <source>退出</source>
        <translation>Quit</translation>
    </message>
</context>
<context>
    <name>WelcomePanel</name>
    <message>
        <location filename="../../sonetto_desktop/ui/welcome.py" line="25" />
        <source>你好，我是 Sonetto</source>
        <translation>Hi, I'm Sonetto</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/welcome.py" line="30" />
        <source>我会记住我们聊过的事，下次见面时还记得你。
开始聊天前，请先在设置里填写一个模型服务（OpenAI、DeepSeek、通义千问，或本机的 Ollama / LM Studio）。
右边的记忆墙现在就可以用。</source>
        <translation>I remember what we talk about, and I'll still remember next time.
Before we chat, add a model service in the settings (OpenAI, DeepSeek, Qwen, or Ollama / LM Studio on this computer).
The memory wall on the right works already.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/welcome.py" line="40" />
        <source>打开设置</source>
        <translation>Open settings</translation>
    </message>
</context>
<context>
    <name>WriterControl</name>
    <message>
        <location filename="../../sonetto_desktop/ui/status_indicator.py" line="33" />
        <source>暂停记忆写入</source>
        <translation>Pause memory writing</translation>
    </message>
</context>
<context>
    <name>WriterToasts</name>
    <message>
        <location filename="../../sonetto_desktop/ui/writer_toasts.py" line="72" />
        <source>记住了：{0}</source>
        <translation>Remembered: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/writer_toasts.py" line="73" />
        <source>记住了一件新事</source>
        <translation>Remembered something new</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/writer_toasts.py" line="76" />
        <source>更新了记忆：{0}</source>
        <translation>Updated a memory: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/writer_toasts.py" line="77" />
        <source>更新了记忆</source>
        <translation>Updated a memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/writer_toasts.py" line="80" />
        <source>合并了两条记忆</source>
        <translation>Merged two memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/writer_toasts.py" line="82" />
        <source>删除了过时的记忆：{0}</source>
        <translation>Deleted an outdated memory: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/writer_toasts.py" line="83" />
        <source>删除了过时的记忆</source>
        <translation>Deleted an outdated memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/writer_toasts.py" line="86" />
        <source>导入了 {0} 条记忆</source>
        <translation>Imported {0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/writer_toasts.py" line="54" />
        <source>这轮对话的记忆整理已放弃：{0}</source>
        <translation>Gave up organising memories for this exchange: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/writer_toasts.py" line="55" />
        <source>这轮对话的记忆整理已放弃</source>
        <translation>Gave up organising memories for this exchange</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/writer_toasts.py" line="57" />
        <source>整理记忆失败：{0}</source>
        <translation>Couldn't organise memories: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/writer_toasts.py" line="59" />
        <source>整理记忆失败</source>
        <translation>Couldn't organise memories</translation>
    </message>
</context>
</TS>