<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="en" sourcelanguage="zh_CN">
<context>
    <name>AccessibleNames</name>
    <message>
        <location filename="../../sonetto_desktop/ui/widgets/accessible_names.py" line="25" />
        <source>清除</source>
        <translation>Clear</translation>
    </message>
</context>
<context>
    <name>CardDelegate</name>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/card_delegate.py" line="80" />
        <source>{0} 次</source>
        <translation>{0}×</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/card_delegate.py" line="550" />
        <source>合并</source>
        <extracomment>A text's words for wrapping: a CJK character (or fullwidth form) alone, or a run of other non-spaces; each with the spaces after it.</extracomment>
        <translation>Merge</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_model.py" line="63" />
        <source>用到 {0} 次</source>
        <translation>Used {0}×</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_model.py" line="72" />
        <source>用到 {0} 次：Sonetto 在对话中想起并用上这条记忆的次数（“用到最多”按它排序）。</source>
        <translation>Used {0}×: how many times Sonetto recalled this memory and used it in a conversation (“Most used” sorts by it).</translation>
    </message>
</context>
<context>
    <name>ChatController</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/controller.py" line="221" />
        <source>没能保存这个对话的记忆设置，仍按原来的设置：</source>
        <translation>Could not save this chat's memory settings; the previous ones still apply: </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/controller.py" line="238" />
        <source>重命名失败：</source>
        <translation>Rename failed: </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/controller.py" line="362" />
        <source>已停止</source>
        <translation>Stopped</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/controller.py" line="366" />
        <source>出错了：</source>
        <translation>Something went wrong: </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/controller.py" line="369" />
        <source>回复意外中断了。</source>
        <translation>The reply stopped unexpectedly.</translation>
    </message>
</context>
<context>
    <name>ChatMemoryBar</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/memory_bar.py" line="50" />
        <source>记忆</source>
        <translation>Memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/memory_bar.py" line="51" />
        <source>这个对话如何使用记忆</source>
        <translation>How this chat uses memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/memory_bar.py" line="55" />
        <source>回复前回忆相关的记忆</source>
        <translation>Recall related memories before replying</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/memory_bar.py" line="57" />
        <source>把这次对话写进记忆</source>
        <translation>Write this chat into memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/memory_bar.py" line="83" />
        <source>临时对话：不回忆、不记住，关闭后不保存</source>
        <translation>Temporary chat: nothing recalled, nothing remembered, not saved when closed</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/memory_bar.py" line="84" />
        <source>这个对话不使用记忆：不回忆，也不写入</source>
        <translation>This chat does not use memory: nothing recalled, nothing written</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/memory_bar.py" line="85" />
        <source>这个对话不回忆记忆（仍会记住新内容）</source>
        <translation>This chat recalls no memories (new things are still remembered)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/memory_bar.py" line="86" />
        <source>这个对话不写入记忆（仍会回忆）</source>
        <translation>This chat is not written to memory (memories are still recalled)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/memory_bar.py" line="87" />
        <source>记忆已开启</source>
        <translation>Memory is on</translation>
    </message>
</context>
<context>
    <name>ChatPanel</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="106" />
        <source>对话</source>
        <translation>Chats</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="109" />
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="111" />
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="207" />
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="345" />
        <source>新对话</source>
        <translation>New chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="112" />
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="346" />
        <source>新建临时对话（不回忆、不记住、不保存）</source>
        <translation>New temporary chat (no recall, not remembered, not saved)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="116" />
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="350" />
        <source>重命名</source>
        <translation>Rename</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="117" />
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="323" />
        <source>删除对话</source>
        <translation>Delete chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="118" />
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="351" />
        <source>导出为 Markdown…</source>
        <translation>Export as Markdown…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="126" />
        <source>没有找到</source>
        <translation>No matches</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="208" />
        <source>临时对话</source>
        <translation>Temporary chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="209" />
        <source>（临时）%1</source>
        <translation>(temporary) %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="228" />
        <source>你</source>
        <translation>You</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="229" />
        <source>%1：%2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="290" />
        <source>对话操作失败：{0}</source>
        <translation>Chat operation failed: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="324" />
        <source>删除对话“%1”？聊天记录会被删除，已经记住的记忆不受影响。</source>
        <translation>Delete the chat “%1”? Its messages are deleted; memories already kept stay.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="326" />
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="352" />
        <source>删除</source>
        <translation>Delete</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="363" />
        <source>导出对话</source>
        <translation>Export chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="363" />
        <source>Markdown 文件 (*.md)</source>
        <translation>Markdown files (*.md)</translation>
    </message>
</context>
<context>
    <name>ChatSearchBox</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/search_box.py" line="30" />
        <source>搜索所有对话…</source>
        <translation>Search all chats…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/search_box.py" line="31" />
        <source>搜索所有对话</source>
        <translation>Search all chats</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/search_box.py" line="66" />
        <source>搜索失败：{0}</source>
        <translation>Search failed: {0}</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/view.py" line="87" />
        <source>这是临时对话。
我不会回忆以前的事，也不会记住这里说的话；关闭后对话不保存。</source>
        <extracomment>The bubbles' least width, in a column that has it; a narrower one (the window at its smallest: the session list and the wall at their own minimum leave the chat 130-160 px) gets bubbles as wide as it is, inside margins of SQUEEZED_MARGIN, rather than a floor that hides them behind a sideways scroll.</extracomment>
        <translation>This is a temporary chat.
I won't recall anything from before or remember what is said here, and the chat is not saved when closed.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/view.py" line="89" />
        <source>这个对话不使用记忆。
我不会回忆以前的事，也不会记住这里说的话。</source>
        <translation>This chat doesn't use memory.
I won't recall anything from before or remember what is said here.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/view.py" line="91" />
        <source>嗨，我是 Sonetto。
这个对话不会写进记忆，但我会回忆以前聊过的事。</source>
        <translation>Hi, I'm Sonetto.
Nothing here is written to memory, but I'll recall what we talked about before.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/view.py" line="93" />
        <source>嗨，我是 Sonetto。
这个对话里我不回忆以前的事，但会记住对你重要的事。</source>
        <translation>Hi, I'm Sonetto.
In this chat I won't recall anything from before, but I'll remember what matters to you.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/view.py" line="96" />
        <source>嗨，我是 Sonetto。
想聊什么都可以——我会记住对你重要的事。</source>
        <translation>Hi, I'm Sonetto.
Talk about anything — I'll remember what matters to you.</translation>
    </message>
</context>
<context>
    <name>CodeBlock</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/code_block.py" line="139" />
        <location filename="../../sonetto_desktop/ui/chat/code_block.py" line="140" />
        <source>已复制</source>
        <translation>Copied</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/code_block.py" line="212" />
        <source>复制</source>
        <translation>Copy</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/code_block.py" line="213" />
        <location filename="../../sonetto_desktop/ui/chat/code_block.py" line="214" />
        <source>复制代码</source>
        <translation>Copy code</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/code_block.py" line="215" />
        <source>代码</source>
        <translation>Code</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/composer.py" line="63" />
        <source>和 Sonetto 说点什么…（Enter 发送，Shift+Enter 换行）</source>
        <translation>Talk to Sonetto… (Enter to send, Shift+Enter: new line)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/composer.py" line="63" />
        <source>和 Sonetto 说点什么…</source>
        <translation>Talk to Sonetto…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/composer.py" line="77" />
        <location filename="../../sonetto_desktop/ui/chat/composer.py" line="181" />
        <source>发送 (Enter)</source>
        <translation>Send (Enter)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/composer.py" line="83" />
        <source>停止回复</source>
        <translation>Stop the reply</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/composer.py" line="100" />
        <source>正在编辑一条消息：发送后会替换它和之后的对话，那几轮让 Sonetto 记下的变化也会撤销（可以再恢复）</source>
        <translation>Editing a message: sending replaces it and everything after it, and what Sonetto noted from those turns is taken back (it can be brought back)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/composer.py" line="105" />
        <source>取消编辑</source>
        <translation>Cancel editing</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/composer.py" line="181" />
        <source>另一个对话还在回复，结束后就能发送</source>
        <translation>Another chat is still replying; you can send once it is done</translation>
    </message>
</context>
<context>
    <name>ConflictsDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/conflicts.py" line="33" />
        <source>可能矛盾的记忆</source>
        <translation>Memories that may contradict each other</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/conflicts.py" line="39" />
        <source>加载中…</source>
        <translation>Loading…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/conflicts.py" line="42" />
        <source>合并这两条…</source>
        <translation>Merge these two…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/conflicts.py" line="43" />
        <source>两条都对</source>
        <translation>Both are right</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/conflicts.py" line="44" />
        <source>不再提示这一对</source>
        <translation>Don't flag this pair again</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/conflicts.py" line="45" />
        <source>在墙上查看</source>
        <translation>Show on the wall</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/conflicts.py" line="83" />
        <source>整理记忆时发现 %1 对说法不一致的记忆，请确认哪条是对的。</source>
        <translation>Tidying found %1 pair(s) of memories that say different things; please check which is right.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/conflicts.py" line="84" />
        <source>没有待确认的矛盾。</source>
        <translation>No contradictions to check.</translation>
    </message>
</context>
<context>
    <name>Conversation</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/conversation.py" line="103" />
        <source>正在使用工具：%1…</source>
        <translation>Using a tool: %1…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/conversation.py" line="106" />
        <source>用过工具：%1</source>
        <translation>Used a tool: %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/conversation.py" line="173" />
        <source>重新生成这条回复？</source>
        <translation>Regenerate this reply?</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/conversation.py" line="174" />
        <source>这条回复之后的 {0} 轮对话会从这个对话里删去（它们让 Sonetto 记下的记忆不受影响）。</source>
        <translation>The {0} turn(s) after this reply will be removed from this chat (the memories they had Sonetto write are not affected).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/conversation.py" line="175" />
        <source>重新生成</source>
        <translation>Regenerate</translation>
    </message>
</context>
<context>
    <name>ConversationUndoDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="38" />
        <source>按对话撤销</source>
        <translation>Undo one conversation</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="44" />
        <source>撤销这次导入里一个对话写下的记忆，其余对话的记忆保留。</source>
        <translation>Undo what one conversation of this import wrote; the other conversations' memories stay.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="47" />
        <source>这次导入的对话</source>
        <translation>The conversations of this import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="52" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="114" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="140" />
        <source>撤销这个对话</source>
        <translation>Undo this conversation</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="54" />
        <source>撤回刚才的撤销</source>
        <translation>Take back that undo</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="56" />
        <source>关闭</source>
        <translation>Close</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="97" />
        <source>新建 {0} 条</source>
        <translation>{0} created</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="99" />
        <source>改过 {0} 条</source>
        <translation>{0} changed</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="101" />
        <source>删掉 {0} 条</source>
        <translation>{0} deleted</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="106" />
        <source>读不了这次导入的对话：{0}</source>
        <translation>Cannot read the conversations of this import: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="108" />
        <source>没有可以单独撤销的对话（更早的导入没有记下每批来自哪个对话）。</source>
        <translation>No conversation can be undone alone (older imports did not record which conversation each batch came from).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="138" />
        <source>撤销这个对话？</source>
        <translation>Undo this conversation?</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="139" />
        <source>撤销对话「{0}」写下的 {1} 条记忆？之后还可以撤回这次撤销。</source>
        <translation>Undo the {1} memories the conversation “{0}” wrote? You can take the undo back afterwards.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="133" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="150" />
        <source>无法撤销：这个对话写下的记忆之后都被改过了</source>
        <translation>Cannot undo: every memory this conversation wrote was changed afterwards</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="128" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="157" />
        <source>无法撤销：{0}</source>
        <translation>Cannot undo: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="163" />
        <source>已撤销对话「{0}」</source>
        <translation>Conversation “{0}” undone</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="165" />
        <source>；你之后改过的 {0} 张卡片原样保留</source>
        <translation>; the {0} cards you changed since are kept as they are</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="182" />
        <source>无法撤回：{0}</source>
        <translation>Cannot take it back: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_undo_conversations.py" line="189" />
        <source>对话「{0}」的记忆已恢复</source>
        <translation>The memories of the conversation “{0}” are back</translation>
    </message>
</context>
<context>
    <name>DataCopyNotice</name>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/data_copy.py" line="29" />
        <source>正在复制到新的数据文件夹：{0} / {1}（{2} / {3} 个文件）</source>
        <extracomment>A copy over sooner is not shown (a toast come and gone at once only flickers).</extracomment>
        <translation>Copying to the new data folder: {0} of {1} ({2} of {3} files)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/data_copy.py" line="34" />
        <source>已取消复制，复制了一部分的文件已删除。仍在使用原来的数据文件夹 {0}。</source>
        <translation>Copy cancelled; the files it had copied were removed. Still using the previous data folder {0}.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/data_copy.py" line="75" />
        <source>取消</source>
        <translation>Cancel</translation>
    </message>
</context>
<context>
    <name>Dialogs</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/panel.py" line="328" />
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="232" />
        <location filename="../../sonetto_desktop/ui/widgets/dialogs.py" line="53" />
        <location filename="../../sonetto_desktop/ui/widgets/dialogs.py" line="78" />
        <source>取消</source>
        <translation>Cancel</translation>
    </message>
</context>
<context>
    <name>DirectionMarks</name>
    <message>
        <location filename="../../sonetto_desktop/ui/widgets/direction_marks.py" line="91" />
        <source>⬚ 是文字方向控制字符（例如从网页复制来的 U+202E），这里只显示、不起作用；保存时原样保留。</source>
        <extracomment>Unicode's direction controls: embeddings, overrides, isolates and their ends.</extracomment>
        <translation>⬚ is a text direction control (such as a U+202E copied from a web page): shown here, it does nothing; saving keeps it as it is.</translation>
    </message>
</context>
<context>
    <name>DiscardGuard</name>
    <message>
        <location filename="../../sonetto_desktop/ui/widgets/discard_guard.py" line="25" />
        <source>放弃修改？</source>
        <translation>Discard changes?</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/widgets/discard_guard.py" line="25" />
        <source>你做的修改还没有保存，关闭后会丢失。</source>
        <translation>Your changes are not saved yet and will be lost if you close.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/widgets/discard_guard.py" line="28" />
        <source>放弃修改</source>
        <translation>Discard changes</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/widgets/discard_guard.py" line="30" />
        <source>继续编辑</source>
        <translation>Keep editing</translation>
    </message>
</context>
<context>
    <name>DontRememberDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/dont_remember.py" line="32" />
        <location filename="../../sonetto_desktop/ui/dialogs/dont_remember.py" line="41" />
        <source>不要记住的内容</source>
        <translation>Things not to remember</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/dont_remember.py" line="38" />
        <source>Sonetto 不会记住和这些内容有关的事。在对话里对一条消息选“别记住这个”，它也会加到这里。你自己添加或编辑记忆不受限制。</source>
        <translation>Sonetto will not remember anything about these. Choosing “Don't remember this” on a chat message adds it here too. Your own memory edits are not limited by this list.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/dont_remember.py" line="42" />
        <source>添加…</source>
        <translation>Add…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/dont_remember.py" line="43" />
        <source>编辑…</source>
        <translation>Edit…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/dont_remember.py" line="44" />
        <location filename="../../sonetto_desktop/ui/dialogs/dont_remember.py" line="116" />
        <location filename="../../sonetto_desktop/ui/dialogs/dont_remember.py" line="118" />
        <source>移除</source>
        <translation>Remove</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/dont_remember.py" line="78" />
        <source>不要记住（最多 %1 字）：</source>
        <translation>Don't remember (at most %1 characters):</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/dont_remember.py" line="96" />
        <source>添加</source>
        <translation>Add</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/dont_remember.py" line="105" />
        <source>编辑</source>
        <translation>Edit</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/dont_remember.py" line="117" />
        <source>从列表里移除「{0}」？移除后 Sonetto 可能会再记住和它有关的事。</source>
        <translation>Remove “{0}” from the list? Once removed, Sonetto may remember things about it again.</translation>
    </message>
</context>
<context>
    <name>EditDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="43" />
        <source>保存（{0}）</source>
        <translation>Save ({0})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="67" />
        <source>没有粘贴：粘贴的内容有 {0} 个字，一条记忆最多 {1} 个字。</source>
        <extracomment>The most a memory's text box takes by a paste or a drop: room to paste a text over the limit and cut it, not megabytes to lay out (a 1 MB paste held the window 2.3 s, then ~1 s at each keystroke).</extracomment>
        <translation>Not pasted: the pasted text has {0} characters, and a memory holds at most {1}.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="103" />
        <source>新建记忆</source>
        <translation>New memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="103" />
        <source>编辑记忆</source>
        <translation>Edit memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="114" />
        <source>关于你的一件事，例如：喜欢手冲咖啡，不加糖</source>
        <translation>Something about you, e.g.: likes pour-over coffee, no sugar</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="119" />
        <source>主题，例如：品味、工作、家人</source>
        <translation>Theme, e.g.: taste, work, family</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="128" />
        <source>为什么这样改（可选，会记入历史）</source>
        <translation>Why this change (optional, kept in the history)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="133" />
        <source>内容</source>
        <translation>Text</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="135" />
        <source>主题</source>
        <translation>Theme</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="136" />
        <source>原因</source>
        <translation>Reason</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="177" />
        <source>内容不能为空。</source>
        <translation>The text cannot be empty.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="179" />
        <source>内容太长了：最多 {0} 个字，现在 {1} 个。</source>
        <translation>The text is too long: at most {0} characters, now {1}.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="182" />
        <source>主题不能为空。</source>
        <translation>The theme cannot be empty.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/edit.py" line="184" />
        <source>还没有改动。</source>
        <translation>Nothing has changed yet.</translation>
    </message>
</context>
<context>
    <name>HistoryDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="109" />
        <source>{0}（{1}）</source>
        <extracomment>Turns the app makes for its own actions (an undo, a failed write taken back): their excerpt is a note the app keeps for itself ("撤销 ui-… 的记忆变化", in Chinese whatever the window's language), not what someone said, and the reason line already says what they were.</extracomment>
        <translation>{0} ({1})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="132" />
        <source>记忆的历史</source>
        <translation>Memory history</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="139" />
        <source>加载中…</source>
        <translation>Loading…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="157" />
        <source>恢复为此版本</source>
        <translation>Restore this version</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="166" />
        <source>打开这段对话</source>
        <translation>Open that chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="168" />
        <source>在对话里找到引起这次改动的那句话</source>
        <translation>Find the message in the chat that caused this change</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="210" />
        <source>这条记忆已不存在（可能被删除或合并）。</source>
        <translation>This memory no longer exists (it may have been deleted or merged).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="217" />
        <source>当前：{0}（{1}）</source>
        <translation>Now: {0} ({1})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_diff.py" line="71" />
        <source>%1（其他应用）</source>
        <translation>%1 (another app)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_diff.py" line="62" />
        <source>你</source>
        <translation>You</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_diff.py" line="66" />
        <source>命令行</source>
        <translation>Command line</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_diff.py" line="68" />
        <source>你（手动编辑 memory.yaml）</source>
        <translation>You (edited memory.yaml by hand)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_diff.py" line="73" />
        <source>其他程序</source>
        <translation>Another program</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_diff.py" line="75" />
        <source>导入</source>
        <translation>Imported</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_diff.py" line="78" />
        <source>从 {0} 的聊天记录导入</source>
        <translation>Imported from {0} chats</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_diff.py" line="79" />
        <source>其他程序（{0}）</source>
        <translation>Another program ({0})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="156" />
        <source>恢复的原因（可选）</source>
        <translation>Reason for restoring (optional)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="211" />
        <source>暂时读不到这条记忆的历史。</source>
        <translation>The history of this memory cannot be read right now.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="266" />
        <source>创建</source>
        <translation>Added</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="267" />
        <source>修改</source>
        <translation>Edited</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="268" />
        <source>合并</source>
        <translation>Merged</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="269" />
        <source>恢复旧版本</source>
        <translation>Reverted</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="270" />
        <source>从回收站恢复</source>
        <translation>Restored</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="271" />
        <source>锁定</source>
        <translation>Locked</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="272" />
        <source>解锁</source>
        <translation>Unlocked</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="273" />
        <source>置顶</source>
        <translation>Pinned</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="274" />
        <source>取消置顶</source>
        <translation>Unpinned</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="281" />
        <source>最初的版本</source>
        <translation>The first version</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="286" />
        <source> · 来自被合并的记忆</source>
        <translation> · from a merged memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="293" />
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="365" />
        <source>起因：“{0}”</source>
        <translation>Prompted by: “{0}”</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="336" />
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="355" />
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="357" />
        <source>主题：{0}</source>
        <translation>Theme: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="340" />
        <source>置顶或取消置顶不改变内容：这一行没有可恢复的版本。</source>
        <translation>Pinning or unpinning changes no content: this row has no version to restore.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="341" />
        <source>锁定或解锁不改变内容：这一行没有可恢复的版本。</source>
        <translation>Locking or unlocking changes no content: this row has no version to restore.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="349" />
        <source>修改前 → 修改后</source>
        <translation>Before → after</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="352" />
        <source>这个版本和现在的内容一样。</source>
        <translation>This version is what the memory holds now.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="359" />
        <source>并入的记忆：{0}</source>
        <translation>Merged-in memory: {0}</translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="394" />
        <source>同时从回收站恢复之后并入这条记忆的 %Ln 条记忆</source>
        <translation><numerusform>Also bring back from the trash the memory merged into this one since</numerusform><numerusform>Also bring back from the trash the %Ln memories merged into this one since</numerusform></translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="345" />
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="363" />
        <source>原因：{0}</source>
        <translation>Reason: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="262" />
        <source>在 {0} 上</source>
        <translation>on {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history.py" line="368" />
        <source>来自：{0}</source>
        <translation>From: {0}</translation>
    </message>
</context>
<context>
    <name>HistoryImportActions</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_actions.py" line="110" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_actions.py" line="126" />
        <source>这个导入正在另一个 Sonetto 里进行</source>
        <translation>This import is running in another Sonetto</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_actions.py" line="114" />
        <source>无法开始导入：{0}</source>
        <translation>Cannot start the import: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_actions.py" line="130" />
        <source>无法继续导入：{0}</source>
        <translation>Cannot continue the import: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_actions.py" line="153" />
        <source>未完成的聊天记录导入（{0}）等记忆服务器回答后再继续：{1}</source>
        <translation>The unfinished chat import ({0}) goes on once the memory server answers: {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_actions.py" line="184" />
        <source>继续未完成的聊天记录导入（{0}）</source>
        <translation>Continuing the unfinished chat import ({0})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_actions.py" line="204" />
        <source>导入出错：{0}</source>
        <translation>The import failed: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_actions.py" line="209" />
        <source>聊天记录导入失败：{0} 批都没能写入，什么也没有写入：{1}</source>
        <translation>Chat import failed: none of the {0} batches could be written; nothing was written: {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_actions.py" line="210" />
        <source>原因不明</source>
        <translation>no reason given</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_actions.py" line="215" />
        <source>聊天记录导入完成：写入 {0} 轮，新记忆 {1} 条，更新 {2} 条</source>
        <translation>Chat import finished: {0} turns read, {1} new memories, {2} updated</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_actions.py" line="214" />
        <source>聊天记录导入完成：{0} 条提议已进入审核箱</source>
        <translation>Chat import finished: {0} proposals are in the review inbox</translation>
    </message>
</context>
<context>
    <name>HistoryImportDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="108" />
        <source>导入聊天记录</source>
        <extracomment>Formats that are not an app a person exports from (the 自动识别 line names the apps only).</extracomment>
        <translation>Import chat history</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="160" />
        <source>{0} · {1} · {2} 轮</source>
        <translation>{0} · {1} · {2} turns</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="172" />
        <source>把你在其他应用里的聊天记录交给 Sonetto：它按当时的日期一段段读完，记下关于你的事。导入前可以预览和挑选，导入后可以整体撤销。</source>
        <translation>Give Sonetto your chats from other apps: it reads them piece by piece as of the day they happened and remembers what they say about you. You can preview and choose before importing, and undo the whole import afterwards.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="212" />
        <source>选择文件…</source>
        <translation>Choose a file…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="213" />
        <source>选择文件夹…</source>
        <translation>Choose a folder…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="215" />
        <source>格式</source>
        <translation>Format</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="216" />
        <source>自动识别格式</source>
        <translation>Detect the format</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="177" />
        <source>JSON Lines 格式…</source>
        <translation>JSON Lines format…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="227" />
        <source>&lt;b&gt;ChatGPT&lt;/b&gt;：设置 → 数据控制 → 导出数据，邮件里的链接下载 zip，选它即可。</source>
        <translation>&lt;b&gt;ChatGPT&lt;/b&gt;: Settings → Data controls → Export data; download the zip from the emailed link and pick it.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="228" />
        <source>&lt;b&gt;Claude&lt;/b&gt;：设置 → 隐私 → 导出数据，邮件里的链接下载 zip，选它即可（格式没有公开说明，尽力而为）。</source>
        <translation>&lt;b&gt;Claude&lt;/b&gt;: Settings → Privacy → Export data; download the zip from the emailed link and pick it (the format is not documented; best effort).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="229" />
        <source>&lt;b&gt;DeepSeek&lt;/b&gt;：设置 → 数据管理 → 导出所有历史对话；或用油猴脚本从网页保存的对话 JSON（格式没有公开说明，按公开的解析器读取，尽力而为）。</source>
        <translation>&lt;b&gt;DeepSeek&lt;/b&gt;: Settings → Data management → Export all chats, or a chat saved as JSON from the web page by a userscript (the format is not documented; read as public parsers do, best effort).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="231" />
        <source>&lt;b&gt;Cherry Studio&lt;/b&gt;：设置 → 数据设置 → 备份，选备份的 zip（含 data.json 的备份）。</source>
        <translation>&lt;b&gt;Cherry Studio&lt;/b&gt;: Settings → Data settings → Backup; pick the backup zip (one with a data.json).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="232" />
        <source>&lt;b&gt;Open WebUI&lt;/b&gt;：设置 → 对话 → 导出对话，选下载的 chat-export-….json（尽力而为）。</source>
        <translation>&lt;b&gt;Open WebUI&lt;/b&gt;: Settings → Chats → Export chats; pick the downloaded chat-export-….json (best effort).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="233" />
        <source>&lt;b&gt;LobeChat&lt;/b&gt;：设置 → 数据存储 → 导出（全部数据），选导出的 .json（尽力而为）。</source>
        <translation>&lt;b&gt;LobeChat&lt;/b&gt;: Settings → Storage → Export (all data); pick the exported .json (best effort).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="234" />
        <source>&lt;b&gt;Chatbox&lt;/b&gt;：设置 → 常规设置 → 数据备份 → 导出（勾选聊天记录），选 chatbox-exported-data-….json（尽力而为）。</source>
        <translation>&lt;b&gt;Chatbox&lt;/b&gt;: Settings → General → Data backup → Export (with Chat History ticked); pick chatbox-exported-data-….json (best effort).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="236" />
        <source>&lt;b&gt;LM Studio&lt;/b&gt;：对话存在用户目录的 .lmstudio/conversations 文件夹里，选这个文件夹或其中的 .conversation.json（尽力而为；文件不记录每条消息的时间，按对话开始的时间导入）。</source>
        <translation>&lt;b&gt;LM Studio&lt;/b&gt;: the chats are in the .lmstudio/conversations folder of your home folder; pick that folder or a .conversation.json in it (best effort; the files keep no time per message, so a chat is dated at its start).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="238" />
        <source>&lt;b&gt;Kimi 等其他应用&lt;/b&gt;：没有可读的导出，请整理成 JSON Lines（每行一条消息，见下面的“JSON Lines 格式”）。</source>
        <translation>&lt;b&gt;Kimi and other apps&lt;/b&gt;: no readable export; put the chats into JSON Lines (one message per line, see “JSON Lines format” below).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="239" />
        <source>&lt;b&gt;Sonetto&lt;/b&gt;：另一台电脑上对话列表里的“导出为 Markdown…”。</source>
        <translation>&lt;b&gt;Sonetto&lt;/b&gt;: “Export as Markdown…” in the chat list on the other computer.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="240" />
        <source>&lt;b&gt;ChatGPT 已保存的记忆&lt;/b&gt;：复制后粘贴到下面的框里。</source>
        <translation>&lt;b&gt;ChatGPT saved memories&lt;/b&gt;: copy them, then paste them into the box below.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="251" />
        <source>能读 %1 导出的聊天记录，还有 Sonetto 导出的对话和 JSON Lines。怎么导出：在右边的格式里选你用的应用。</source>
        <translation>Reads chats exported from %1, and chats exported from Sonetto or written as JSON Lines. How to export: pick your app in the format box.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="257" />
        <source>或者粘贴 ChatGPT 的“已保存的记忆”（设置 → 个性化 → 管理记忆，全选复制），每行一条：</source>
        <translation>Or paste ChatGPT’s saved memories (Settings → Personalization → Manage memories, select all and copy), one per line:</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="261" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="378" />
        <source>粘贴的记忆</source>
        <translation>Pasted memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="263" />
        <source>读取粘贴的记忆</source>
        <translation>Read the pasted memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="273" />
        <source>正在读取</source>
        <translation>Reading</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="274" />
        <source>取消读取</source>
        <translation>Stop reading</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="282" />
        <source>继续这次导入</source>
        <translation>Continue this import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="283" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="330" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="904" />
        <source>撤销已导入的部分</source>
        <translation>Undo what was imported</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="181" />
        <source>关闭</source>
        <translation>Close</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="286" />
        <source>JSON Lines 格式</source>
        <translation>JSON Lines format</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="287" />
        <source>每行一个 JSON 对象，即一条消息：

{0}

conversation：属于哪个对话；role：user 或 assistant（system、tool 会被跳过）；content：消息文字；time：ISO-8601 时间，带时区（不带则按本机时区）。
可选：title（对话标题）、id（消息编号，用来认出重复导入）。行的顺序不限，空行可以有。</source>
        <translation>One JSON object per line, each a message:

{0}

conversation: which chat it belongs to; role: user or assistant (system and tool lines are skipped); content: the text; time: an ISO-8601 time with its offset (without one, this computer’s time zone).
Optional: title (the chat’s title), id (the message’s id, which recognises it on a second import). Lines may come in any order; blank lines are fine.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="313" />
        <source>没有粘贴：内容有 {0} 字，ChatGPT 的已保存记忆一般只有几千字（最多 {1} 字）。请只复制“管理记忆”里的列表。</source>
        <translation>Not pasted: that is {0} characters, and ChatGPT's saved memories are a few thousand (at most {1}). Copy only the list under “Manage memories”.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="327" />
        <source>有一次没有完成的导入：{0} · {1}，已写入 {2}/{3} 轮</source>
        <translation>An import was not finished: {0} · {1}, {2}/{3} turns written</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="332" />
        <source>上次导入：{0} · {1}，写入 {2} 轮，新记忆 {3} 条，更新 {4} 条</source>
        <translation>Last import: {0} · {1}, {2} turns read, {3} new memories, {4} updated</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="335" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="1064" />
        <source>撤销这次导入</source>
        <translation>Undo this import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="343" />
        <source>选择聊天记录</source>
        <translation>Choose a chat export</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="349" />
        <source>聊天记录 (*.zip *.json *.jsonl *.md *.txt)</source>
        <translation>Chat exports (*.zip *.json *.jsonl *.md *.txt)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="349" />
        <source>所有文件 (*)</source>
        <translation>All files (*)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="398" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="402" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="419" />
        <source>读不了 {0}：{1}</source>
        <translation>Cannot read {0}: {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="402" />
        <source>出了意外的问题，详情已写入日志。</source>
        <translation>something unexpected went wrong; the details are in the log.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="470" />
        <source>正在读取 {0}：%p%</source>
        <translation>Reading {0}: %p%</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="479" />
        <source>返回</source>
        <translation>Back</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="480" />
        <source>取消</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="510" />
        <source>导入这些记忆…</source>
        <translation>Import them…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="515" />
        <source>从</source>
        <translation>From</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="515" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="529" />
        <source>到</source>
        <translation>to</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="521" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="523" />
        <source>按标题筛选</source>
        <translation>Filter by title</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="524" />
        <source>全选</source>
        <translation>Select all</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="525" />
        <source>全不选</source>
        <translation>Select none</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="527" />
        <source>日期从</source>
        <translation>Dates from</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="548" />
        <source>开始导入</source>
        <translation>Start importing</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="576" />
        <source>另有 {0} 条 ChatGPT 已保存的记忆（不在对话里）。</source>
        <translation>And {0} ChatGPT saved memories (not in the chats).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="582" />
        <source>正在计算…</source>
        <translation>Counting…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="621" />
        <source>正在计算…（已读 {0} / {1} 个对话）</source>
        <translation>Counting… ({0} of {1} conversations read)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="628" />
        <source>跳过 {0} 个读不了的对话：</source>
        <translation>Left out {0} conversations that cannot be read:</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="631" />
        <source>…另有 {0} 个</source>
        <translation>… and {0} more</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="638" />
        <source>还没有配置模型：请先在设置里填写模型，导入要由模型来读。</source>
        <translation>No model is configured: set one in Settings first; a model reads the import.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="641" />
        <source>审核模式已开启：导入的结果会进入审核箱，由你确认后才写入。</source>
        <translation>Review mode is on: what the import finds goes to the review inbox and is written only once you approve it.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="670" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="875" />
        <source>没能算出要导入的内容：{0}</source>
        <translation>Could not work out what to import: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="687" />
        <source>已导入过的 {0} 轮</source>
        <translation>{0} turns imported before</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="689" />
        <source>未完成的导入里还要写的 {0} 轮（继续那次导入即可）</source>
        <translation>{0} turns an unfinished import has still to write (resume it)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="691" />
        <source>不导入列表里的 {0} 个对话</source>
        <translation>{0} conversations on the don’t-import list</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="693" />
        <source>日期范围外的 {0} 轮</source>
        <translation>{0} turns outside the dates</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="695" />
        <source>文件里重复出现的 {0} 轮（只导入一次）</source>
        <translation>{0} turns repeated in the file (imported once)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="698" />
        <source>系统提示、工具调用、改写前的分支、空白等 {0} 条消息</source>
        <translation>{0} messages such as system prompts, tool calls, branches edited away and blanks</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="699" />
        <source>不导入：{0}</source>
        <translation>Not imported: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="701" />
        <source>{0} 处疑似密码、密钥或证件号会在发送给模型前隐去</source>
        <translation>{0} likely passwords, keys or ID numbers are hidden before the model sees them</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="704" />
        <source>{0} 条很长的消息只读开头和结尾（每条约 {1} 字）</source>
        <translation>{0} very long messages are read only at their start and end (about {1} characters each)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="714" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="729" />
        <source>没有保存：{0}</source>
        <translation>Not saved: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="737" />
        <source>ChatGPT 已保存的记忆</source>
        <translation>ChatGPT saved memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="738" />
        <source>每条直接成为一条记忆（不经模型），可以改主题或取消勾选。</source>
        <translation>Each becomes one memory as it is (no model reads it); you can change its theme or untick it.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="745" />
        <source>导入</source>
        <translation>Import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="760" />
        <source>审核模式已开启：它们会进入审核箱，由你确认后才写入。</source>
        <translation>Review mode is on: they go to the review inbox and are written only once you approve them.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="767" />
        <source>导入 {0} 条记忆</source>
        <translation>Import {0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="774" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="779" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="783" />
        <source>没有导入：{0}</source>
        <translation>Not imported: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="834" />
        <source>正在准备导入：要读的对话逐批存好后开始，大的导入可能要几分钟；关闭窗口会取消这次导入。</source>
        <translation>Preparing the import: it begins once the chats to read are saved batch by batch, which can take a few minutes for a large one; closing the window cancels it.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="900" />
        <source>导入已停止</source>
        <translation>Import stopped</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="901" />
        <source>已导入的部分要保留吗？保留的话，以后再导入同一个文件会接着导入剩下的。</source>
        <translation>Keep what was imported? If you keep it, importing the same file again goes on with the rest.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="903" />
        <source>保留已导入的部分</source>
        <translation>Keep what was imported</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="955" />
        <source>删除它新建的 {0} 条记忆</source>
        <translation>delete the {0} memories it created</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="957" />
        <source>把它改过的 {0} 条记忆恢复原样</source>
        <translation>put back the {0} memories it changed</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="959" />
        <source>找回它删掉的 {0} 条记忆</source>
        <translation>bring back the {0} memories it deleted</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="962" />
        <source>撤销这次导入？</source>
        <translation>Undo this import?</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="962" />
        <source>撤销会影响 {0} 条记忆：{1}。撤销之后还可以重做。</source>
        <translation>Undoing touches {0} memories: {1}. You can redo it afterwards.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="963" />
        <source>，</source>
        <translation>, </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="963" />
        <source>撤销导入</source>
        <translation>Undo the import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="995" />
        <source>重做这次导入</source>
        <translation>Redo this import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="1002" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="1007" />
        <source>无法重做：{0}</source>
        <translation>Cannot redo: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="1004" />
        <source>无法重做：撤销之后这些记忆都被改过了</source>
        <translation>Cannot redo: every one of these memories was changed after the undo</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="1057" />
        <source>……还有 {0} 张</source>
        <translation>…and {0} more</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="1059" />
        <source>无法撤销：这次导入写下的 {0} 条记忆之后都被改过，撤销会丢掉那些修改。</source>
        <translation>Cannot undo: all {0} memories the import wrote were changed afterwards, and undoing would lose those changes.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="943" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="1034" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="1046" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_import.py" line="1076" />
        <source>无法撤销：{0}</source>
        <translation>Cannot undo: {0}</translation>
    </message>
</context>
<context>
    <name>HistoryImportToast</name>
    <message>
        <location filename="../../sonetto_desktop/ui/shell.py" line="275" />
        <source>撤销导入</source>
        <translation>Undo import</translation>
    </message>
</context>
<context>
    <name>HistoryPreview</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="50" />
        <source>约 {0}{1}</source>
        <translation>about {0}{1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="52" />
        <source>费用：未设置单价</source>
        <translation>cost: no price set</translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="54" />
        <source>%Ln 个对话</source>
        <translation><numerusform>1 conversation</numerusform><numerusform>%Ln conversations</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="55" />
        <source>%Ln 轮</source>
        <translation><numerusform>1 turn</numerusform><numerusform>%Ln turns</numerusform></translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="56" />
        <source>{0} · {1} 字 · 约 {2} tokens · {3}</source>
        <translation>{0} · {1} characters · about {2} tokens · {3}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="63" />
        <source>已导入</source>
        <translation>Imported</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="65" />
        <source>在未完成的导入里（继续那次导入即可）</source>
        <translation>In an unfinished import (resume it)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="67" />
        <source>已导入 {0} 轮，其余待导入</source>
        <translation>{0} turns imported, the rest to import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="69" />
        <source>不导入（列表里的“{0}”）</source>
        <translation>Not imported (“{0}” on the list)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="71" />
        <source>不在日期范围内</source>
        <translation>Outside the dates</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="73" />
        <source>不导入</source>
        <translation>Not imported</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="74" />
        <source>推断的分支</source>
        <translation>Branch guessed</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="74" />
        <source>待导入</source>
        <translation>To import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="104" />
        <source>对话</source>
        <translation>Conversation</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="104" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="428" />
        <source>日期</source>
        <translation>Date</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="105" />
        <source>轮数</source>
        <translation>Turns</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="105" />
        <source>字数</source>
        <translation>Characters</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="106" />
        <source>状态</source>
        <translation>State</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="327" />
        <source>要导入的对话</source>
        <translation>Conversations to import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="409" />
        <source>从不导入列表里移除“{0}”</source>
        <translation>Remove “{0}” from the don’t-import list</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="413" />
        <source>以后都不导入这个标题</source>
        <translation>Never import this title</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="428" />
        <source>记忆</source>
        <translation>Memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="428" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="454" />
        <source>主题</source>
        <translation>Theme</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="429" />
        <source>要导入的已保存记忆</source>
        <translation>Saved memories to import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_preview.py" line="448" />
        <source>太长了（{0} 字），一条记忆最多 500 字</source>
        <translation>Too long ({0} characters); a memory holds at most 500</translation>
    </message>
</context>
<context>
    <name>HistoryProgress</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="32" />
        <source>剩余时间估算中</source>
        <translation>working out the time left</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="34" />
        <source>剩余不到 2 分钟</source>
        <translation>less than 2 minutes left</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="36" />
        <source>剩余约 {0} 分钟</source>
        <translation>about {0} minutes left</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="37" />
        <source>剩余约 {0} 小时</source>
        <translation>about {0} hours left</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="43" />
        <source>提议 {0} 条</source>
        <translation>{0} proposals</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="45" />
        <source>新记忆 {0} · 更新 {1}</source>
        <translation>{0} new memories · {1} updated</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="47" />
        <source> · 待你确认 {0}</source>
        <translation> · {0} waiting for you</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="49" />
        <source>已写入 {0}/{1} 轮 · {2}</source>
        <translation>{0}/{1} turns written · {2}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="51" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="53" />
        <source>已写入 {0}/{1} 轮 · {2} · {3}</source>
        <translation>{0}/{1} turns written · {2} · {3}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="58" />
        <source>出错了，稍后自动重试（已失败 {0} 次）：{1}</source>
        <translation>failed (try {0}), trying again shortly: {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="64" />
        <source>已暂停：点“继续”接着导入</source>
        <translation>Paused: click “Continue” to go on</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="66" />
        <source>审核箱快满了，导入已暂停：处理一些提议后会自动继续</source>
        <translation>The review inbox is nearly full, so the import waits: it goes on by itself once you have dealt with some proposals</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="68" />
        <source>先写刚才聊天的记忆，导入稍后继续…</source>
        <translation>Remembering your latest chat first; the import goes on right after…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="85" />
        <source>正在导入…</source>
        <translation>Importing…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="92" />
        <source>导入进度</source>
        <translation>Import progress</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="107" />
        <source>重试</source>
        <translation>Retry</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="112" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="195" />
        <source>暂停</source>
        <translation>Pause</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="113" />
        <source>后台运行</source>
        <translation>Run in background</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="114" />
        <source>停止</source>
        <translation>Stop</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="115" />
        <source>撤销这次导入</source>
        <translation>Undo this import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="116" />
        <source>重做这次导入</source>
        <translation>Redo this import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="117" />
        <source>按对话撤销…</source>
        <translation>Undo one conversation…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="118" />
        <source>关闭</source>
        <translation>Close</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="189" />
        <source>正在读：「{0}」· {1}</source>
        <extracomment>the import's end the panel shows (``show_done``), None while it shows anything else: a window opened again after a language switch shows it again</extracomment>
        <translation>Reading: “{0}” · {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="195" />
        <source>继续</source>
        <translation>Continue</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="196" />
        <source>{0} 批没能写入</source>
        <translation>{0} batches could not be written</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="203" />
        <source>导入失败</source>
        <translation>Import failed</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="206" />
        <source>{0} 批都没能写入，什么也没有写入：{1}</source>
        <translation>None of the {0} batches could be written; nothing was written: {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="207" />
        <source>原因不明</source>
        <translation>no reason given</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="213" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="275" />
        <source>导入完成</source>
        <translation>Import finished</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="217" />
        <source>写入 {0} 轮，{1} 条提议已进入审核箱</source>
        <translation>{0} turns read; {1} proposals are in the review inbox</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="219" />
        <source>写入 {0} 轮：新记忆 {1} 条，更新 {2} 条，删除 {3} 条</source>
        <translation>{0} turns read: {1} new memories, {2} updated, {3} deleted</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="222" />
        <source>；{0} 项对你已有记忆的改动在审核箱里等你确认</source>
        <translation>; {0} changes to your memories wait for you in the review inbox</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="225" />
        <source>；{0} 轮没能写入</source>
        <translation>; {0} turns could not be written</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="231" />
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="283" />
        <source>撤销编号：{0}（命令行：sonetto memory undo {0}）</source>
        <translation>Undo id: {0} (command line: sonetto memory undo {0})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="238" />
        <source>已撤销这次导入</source>
        <translation>Import undone</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="241" />
        <source>其余导入的记忆已放回原样；你之后改过的 {0} 张卡片原样保留；同一个文件以后可以重新导入</source>
        <translation>The rest of the imported memories are as they were; the {0} cards you changed afterwards are kept as they are; the same file can be imported again later</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="245" />
        <source>导入的记忆已放回原样；同一个文件以后可以重新导入</source>
        <translation>The memories are as they were before; the same file can be imported again later</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="247" />
        <source>；它在审核箱里等你确认的 {0} 项改动已一并撤回</source>
        <translation>; its {0} changes waiting for you in the review inbox were withdrawn with it</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="251" />
        <source>……还有 {0} 张</source>
        <translation>…and {0} more</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="254" />
        <source>改变主意了？点“重做这次导入”，或在命令行：sonetto memory undo {0}</source>
        <translation>Changed your mind? Click “Redo this import”, or on the command line: sonetto memory undo {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="263" />
        <source>已重做这次导入</source>
        <translation>Import redone</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="265" />
        <source>导入的记忆已恢复成导入后的样子</source>
        <translation>The imported memories are back as the import left them</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="267" />
        <source>；你之后改过的 {0} 张卡片原样保留</source>
        <translation>; the {0} cards you changed since are kept as they are</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="278" />
        <source>{0} 条提议已进入审核箱</source>
        <translation>{0} proposals are in the review inbox</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="279" />
        <source>新记忆 {0} 条</source>
        <translation>{0} new memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="281" />
        <source>；跳过 {0} 条</source>
        <translation>; {0} skipped</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="287" />
        <source>导入已停止</source>
        <translation>Import stopped</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/history_progress.py" line="289" />
        <source>已导入的部分保留着；再次导入同一个文件会接着导入剩下的</source>
        <translation>What was imported stays; importing the same file again goes on with the rest</translation>
    </message>
</context>
<context>
    <name>ImportErrors</name>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="235" />
        <source>无法识别的文件类型 {0}：请用 .yaml、.json 或 .md 文件</source>
        <translation>unknown file type {0}: use .yaml, .json or .md</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="237" />
        <source>{0}：条目 {1} 不是一条记忆（应有 description、theme 等）</source>
        <translation>{0}: entry {1} is not a memory (expected description, theme, ...)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="240" />
        <source>{0}：记忆 {1} 的{2}不是文字（而是{3}）</source>
        <translation>{0}: memory {1} has a {2} that is not text (it is {3})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="246" />
        <source>{0}：记忆 {1} 的{2}有 {3} 个字，超过了上限 {4} 字</source>
        <translation>{0}: memory {1} has a {2} of {3} characters (limit {4})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="252" />
        <source>第 {0} 行：这条记忆的{1}有 {2} 个字，超过了上限 {3} 字</source>
        <translation>line {0}: this memory's {1} has {2} characters (limit {3})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="258" />
        <source>系统不让读取（错误代码 {0}）</source>
        <translation>the system refused to read it (error code {0})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="263" />
        <source>{0} 不是 UTF-8 编码的文本（第 {1} 行起）：请把它另存为 UTF-8 再导入</source>
        <translation>{0} is not UTF-8 text (from line {1}): save it as UTF-8 and import it again</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="265" />
        <source>{0} 用了 YAML 的锚点或别名（&amp;名字 / *名字，第 {1} 行）：记忆文件用不到它们，所以没有读取</source>
        <translation>{0} uses YAML anchors or aliases (&amp;name / *name, line {1}); memory files never need them, so it is not read</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="269" />
        <source>{0} 不是记忆导出文件：它应是从编号到记忆的对应表，这里是{1}</source>
        <translation>{0}: expected a mapping of id -&gt; memory, found {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="272" />
        <source>{0} 无法解析：第 {1} 行第 {2} 列不合格式。它可能不是记忆导出文件，或已损坏</source>
        <translation>{0} cannot be parsed: the format breaks at line {1}, column {2}; it may not be a memory export, or it is damaged</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="275" />
        <source>{0} 无法解析，它可能不是记忆导出文件，或已损坏</source>
        <translation>{0} cannot be parsed; it may not be a memory export, or it is damaged</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="277" />
        <source>{0}：回收站里的 {1} 不是一条删除了的记忆</source>
        <translation>{0}: trash entry {1} is not a deleted memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="279" />
        <source>{0}：回收站那一部分读不了（应是从编号到删除了的记忆的对应表）</source>
        <translation>{0}: the trash cannot be read (expected a mapping of id -&gt; deleted memory)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="281" />
        <source>{0} 无法解析：嵌套层数太多，不像是记忆导出文件</source>
        <translation>{0} cannot be parsed: it is nested too deeply to be a memory export</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="283" />
        <source>{0} 不是从编号到置顶标记的对应表</source>
        <translation>{0} is not a mapping of ids to pins</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="290" />
        <source>内容</source>
        <translation>description</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="292" />
        <source>主题</source>
        <translation>theme</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="294" />
        <source>历史里的一条原因</source>
        <translation>history reason</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="301" />
        <source>列表</source>
        <translation>a list</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="303" />
        <source>对应表</source>
        <translation>a mapping</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="305" />
        <source>一段文字</source>
        <translation>text</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="307" />
        <source>数字</source>
        <translation>a number</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="309" />
        <source>是/否</source>
        <translation>yes or no</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="311" />
        <source>空值</source>
        <translation>nothing (null)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="312" />
        <source>别的内容</source>
        <translation>something else</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="243" />
        <source>{0}：记忆 {1} 没有内容（description）</source>
        <translation>{0}: memory {1} has no description</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="211" />
        <source>旁边的回收站文件读不了，里面删除了的记忆没有导入：{0}</source>
        <translation>The trash file beside it could not be read, so the deleted memories in it were left out: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="217" />
        <source>旁边的置顶标记文件读不了，记忆导入了，但没有置顶：{0}</source>
        <translation>The pins file beside it could not be read, so the pins in it were left out (the memories came in unpinned): {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="226" />
        <source>{0}。{1}</source>
        <translation>{0}. {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="249" />
        <source>第 {0} 行：这条记忆前面没有“## 主题”标题</source>
        <translation>line {0}: a memory before any '## theme' heading</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="259" />
        <source>{0} 无法读取：{1}</source>
        <translation>{0} cannot be read: {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="261" />
        <source>{0} 有 {1} MB，超过 {2} MB 的导入文件不会被读取</source>
        <translation>{0} is {1} MB; imports larger than {2} MB are not read</translation>
    </message>
</context>
<context>
    <name>ImportPreviewDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="32" />
        <source>导入记忆</source>
        <translation>Import memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="35" />
        <source>新增</source>
        <translation>New</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="35" />
        <source>新增（编号已被占用，换新编号）</source>
        <translation>New (its id is taken; gets a new id)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="35" />
        <source>跳过（已有相同记忆）</source>
        <translation>Skipped (already there)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="41" />
        <source>从 {0} 导入：新增 {1} 条，其中 {2} 条换了新编号；跳过 {3} 条重复的。已有的记忆不会被覆盖。</source>
        <translation>Import from {0}: {1} new, {2} of them with a new id; {3} duplicates skipped. Existing memories are never overwritten.</translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="45" />
        <source>另有 %Ln 条删除了的记忆会放回回收站（不上记忆墙；这次导入不新增记忆，无从撤销，不需要的可以在回收站里永久删除）。</source>
        <translation><numerusform> Besides, 1 deleted memory goes back into the trash (not onto the wall; this import adds no memory, so there is nothing to undo: delete it for good in the trash if you do not want it).</numerusform><numerusform> Besides, %Ln deleted memories go back into the trash (not onto the wall; this import adds no memory, so there is nothing to undo: delete them for good in the trash if you do not want them).</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="49" />
        <source>另有 %Ln 条删除了的记忆会放回回收站（不上记忆墙；撤销这次导入时它们仍留在回收站）。</source>
        <translation><numerusform> Besides, 1 deleted memory goes back into the trash (not onto the wall; undoing the import leaves it there).</numerusform><numerusform> Besides, %Ln deleted memories go back into the trash (not onto the wall; undoing the import leaves them there).</numerusform></translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="55" />
        <source>结果</source>
        <translation>Result</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="55" />
        <source>内容</source>
        <translation>Text</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="55" />
        <source>主题</source>
        <translation>Theme</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="56" />
        <source>将要导入的记忆</source>
        <translation>Memories to import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="65" />
        <source>（只列出前 {0} 条）</source>
        <translation>(only the first {0} are listed)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="70" />
        <source>导入</source>
        <translation>Import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/import_preview.py" line="75" />
        <source>取消</source>
        <translation>Cancel</translation>
    </message>
</context>
<context>
    <name>ImportStatus</name>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/import_status.py" line="87" />
        <source>导入 {0} 已暂停 {1}/{2}</source>
        <translation>Import {0} paused {1}/{2}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/import_status.py" line="89" />
        <source>导入 {0} 稍候 {1}/{2}</source>
        <translation>Import {0} waiting {1}/{2}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/import_status.py" line="91" />
        <source>导入 {0} 出错重试中 {1}/{2}</source>
        <translation>Import {0} retrying {1}/{2}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/import_status.py" line="93" />
        <source>导入 {0} {1}/{2} 轮</source>
        <translation>Import {0} {1}/{2} turns</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/import_status.py" line="95" />
        <source>正在导入 {0} 的聊天记录（{1}）</source>
        <translation>Importing the chats from {0} ({1})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/import_status.py" line="100" />
        <source>点击打开导入窗口</source>
        <translation>Click to open the import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/import_status.py" line="102" />
        <source>聊天记录导入：{0}</source>
        <translation>Chat import: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/import_status.py" line="103" />
        <source>继续导入</source>
        <translation>Resume the import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/import_status.py" line="103" />
        <source>暂停导入</source>
        <translation>Pause the import</translation>
    </message>
</context>
<context>
    <name>Language</name>
    <message>
        <location filename="../../sonetto_desktop/presentation/i18n.py" line="40" />
        <location filename="../../sonetto_desktop/ui/i18n.py" line="92" />
        <source>zh</source>
        <translation>en</translation>
    </message>
</context>
<context>
    <name>LinkConfirm</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/link_confirm.py" line="22" />
        <source>打开链接</source>
        <translation>Open link</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/link_confirm.py" line="23" />
        <source>在浏览器中打开这个链接？</source>
        <translation>Open this link in your browser?</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../sonetto_desktop/ui/main_window.py" line="56" />
        <source>记忆伙伴 · Sonetto</source>
        <extracomment>Room left for the window manager's border and title bar before the window has one.</extracomment>
        <translation>A companion who remembers · Sonetto</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/main_window.py" line="97" />
        <source>新对话</source>
        <translation>New chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/main_window.py" line="121" />
        <location filename="../../sonetto_desktop/ui/main_window.py" line="122" />
        <source>设置</source>
        <translation>Settings</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/main_window.py" line="169" />
        <source>撤销：%1</source>
        <translation>Undo: %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/main_window.py" line="169" />
        <location filename="../../sonetto_desktop/ui/window_menus.py" line="67" />
        <source>撤销</source>
        <translation>Undo</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/main_window.py" line="171" />
        <source>重做：%1</source>
        <translation>Redo: %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/main_window.py" line="171" />
        <location filename="../../sonetto_desktop/ui/window_menus.py" line="69" />
        <source>重做</source>
        <translation>Redo</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/window_menus.py" line="52" />
        <source>文件(&amp;F)</source>
        <translation>&amp;File</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/window_menus.py" line="53" />
        <source>导入记忆…</source>
        <translation>Import memories…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/window_menus.py" line="54" />
        <source>导出记忆…</source>
        <translation>Export memories…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/window_menus.py" line="55" />
        <source>导入聊天记录…</source>
        <translation>Import chat history…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/window_menus.py" line="57" />
        <source>回收站…</source>
        <translation>Trash…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/window_menus.py" line="59" />
        <source>设置…</source>
        <translation>Settings…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/window_menus.py" line="62" />
        <source>退出</source>
        <translation>Quit</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/window_menus.py" line="64" />
        <source>编辑(&amp;E)</source>
        <translation>&amp;Edit</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/window_menus.py" line="73" />
        <source>帮助(&amp;H)</source>
        <translation>&amp;Help</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/window_menus.py" line="74" />
        <source>键盘快捷键</source>
        <translation>Keyboard shortcuts</translation>
    </message>
</context>
<context>
    <name>McpPage</name>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="78" />
        <source>允许其他应用使用我的记忆</source>
        <translation>Let other apps use my memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="79" />
        <source>只读：其他应用只能查找和查看，不能修改</source>
        <translation>Read-only: other apps can search and read, not change</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="81" />
        <source>留空表示所有应用；多个用逗号分隔，如 Cursor, Cherry Studio</source>
        <translation>Empty: any app; several separated by commas, e.g. Cursor, Cherry Studio</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="72" />
        <source>让其他 AI 应用（Claude Desktop、Cursor、Cherry Studio 等）通过 MCP 使用你的记忆。服务只在这台电脑上运行；它们做的每个修改都记在历史里（修改者显示为 mcp:应用名），可以撤销。锁定的记忆和“不要记住”列表同样有效。注意：应用名称是应用连接时自己报上的名字，并不能证明它是谁；要让“允许的应用”和修改记录确实按应用区分，请用 HTTP 方式并给每个应用一个自己的令牌。</source>
        <translation>Let other AI apps (Claude Desktop, Cursor, Cherry Studio…) use your memories through MCP. The server runs on this computer only; every change they make is in the history (made by mcp:app name) and can be undone. Locked memories and the “don't remember” list apply to them too. Note: an app's name is the one it declares when it connects, not proof of who it is; for the allowed apps and the history to tell apps apart for sure, use HTTP and give each app a token of its own.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="82" />
        <source>应用名称是它连接时自己报上的名字（用应用令牌时是令牌所属的应用），不区分大小写。</source>
        <translation>An app's name is the one it declares when it connects (with an app token: the token's app); case does not matter.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="94" />
        <source>共用令牌：应用以它自己报上的名字记录和判断。应用令牌：用这个令牌连接的就是这个应用。</source>
        <translation>Shared token: an app is recorded and judged by the name it declares. App token: whoever connects with it is that app.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="95" />
        <source>共用令牌</source>
        <translation>Shared token</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="99" />
        <source>正在读取…</source>
        <translation>Reading…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="100" />
        <source>复制令牌</source>
        <translation>Copy token</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="102" />
        <source>重新生成</source>
        <translation>Make a new one</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="103" />
        <source>旧令牌立即失效，使用 HTTP 的应用需要换上新令牌。</source>
        <translation>The old token stops working at once; apps using HTTP need the new one.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="106" />
        <source>应用名称，如 Cursor</source>
        <translation>App name, e.g. Cursor</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="107" />
        <source>生成应用令牌</source>
        <translation>Make app token</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="110" />
        <source>撤销应用令牌</source>
        <translation>Revoke app token</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="111" />
        <source>所选应用的令牌立即失效。</source>
        <translation>The selected app's token stops working at once.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="115" />
        <source>允许用共用令牌连接（HTTP）</source>
        <translation>Allow connecting with the shared token (HTTP)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="117" />
        <source>给应用生成自己的令牌后才能关掉它：之后只有持应用令牌的应用能通过 HTTP 连接，修改记录里的应用名就确实是它。</source>
        <translation>It can be switched off once apps have tokens of their own: then only apps with their own token can connect over HTTP, and the app name in the history really is that app.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="133" />
        <source>由应用启动（推荐）</source>
        <translation>Started by the app (recommended)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="134" />
        <source>HTTP（先运行 sonetto mcp --http）</source>
        <translation>HTTP (run sonetto mcp --http first)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="140" />
        <source>复制配置</source>
        <translation>Copy configuration</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="87" />
        <source>允许的应用</source>
        <translation>Allowed apps</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="120" />
        <source>HTTP 端口</source>
        <translation>HTTP port</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="121" />
        <source>HTTP 令牌</source>
        <translation>HTTP token</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="123" />
        <source>应用令牌</source>
        <translation>App tokens</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="144" />
        <source>配置</source>
        <translation>Configuration</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="150" />
        <source>其他应用</source>
        <translation>Other apps</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="190" />
        <source>连接过的应用：%1</source>
        <translation>Apps that have connected: %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="191" />
        <source>还没有应用连接过。</source>
        <translation>No app has connected yet.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="249" />
        <source>应用令牌无法读取：在重新生成之前，用共用令牌或 stdio 连接的应用都会被拒绝，持旧应用令牌的应用也无法连接。请为每个应用重新生成令牌。</source>
        <translation>The apps' own tokens cannot be read: until they are made again, apps connecting with the shared token or through stdio are refused, and apps with their old token cannot connect. Make a new token for each app.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="283" />
        <source>共用令牌已关闭，也没有应用令牌：现在没有应用能通过 HTTP 连接。</source>
        <translation>The shared token is off and no app has a token of its own: no app can connect over HTTP now.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="285" />
        <source>共用令牌已关闭（保存后生效）：只有持应用令牌的应用能通过 HTTP 连接；stdio 方式不受影响。</source>
        <translation>The shared token is off (once saved): only apps with their own token can connect over HTTP; apps that launch Sonetto (stdio) are not affected.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="297" />
        <source>Claude Desktop：设置 → 开发者 → 编辑配置，把这段合并进 claude_desktop_config.json，然后重启 Claude。</source>
        <translation>Claude Desktop: Settings → Developer → Edit Config, merge this into claude_desktop_config.json, then restart Claude.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="298" />
        <source>Cursor：把这段合并进 ~/.cursor/mcp.json（或项目里的 .cursor/mcp.json）。</source>
        <translation>Cursor: merge this into ~/.cursor/mcp.json (or a project's .cursor/mcp.json).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/mcp_page.py" line="299" />
        <source>Cherry Studio：设置 → MCP 服务器 → 添加 → 从 JSON 导入，粘贴这段。</source>
        <translation>Cherry Studio: Settings → MCP Servers → Add → Import from JSON, and paste this.</translation>
    </message>
</context>
<context>
    <name>MemoryUndo</name>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="34" />
        <source>新建</source>
        <translation>add</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="36" />
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="54" />
        <source>修改</source>
        <translation>edit</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="38" />
        <source>删除</source>
        <translation>delete</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="40" />
        <source>合并</source>
        <translation>merge</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="42" />
        <source>恢复</source>
        <translation>restore</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="44" />
        <source>还原</source>
        <translation>revert</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="46" />
        <source>解锁</source>
        <translation>unlock</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="48" />
        <source>锁定</source>
        <translation>lock</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="50" />
        <source>导入</source>
        <translation>import</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="52" />
        <source>置顶</source>
        <translation>pin</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="53" />
        <source>取消置顶</source>
        <translation>unpin</translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="90" />
        <source>Sonetto 的 %Ln 处记忆变化</source>
        <translation><numerusform>Sonetto's 1 memory change</numerusform><numerusform>Sonetto's %Ln memory changes</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="92" />
        <source>%Ln 处记忆变化</source>
        <translation><numerusform>1 memory change</numerusform><numerusform>%Ln memory changes</numerusform></translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="95" />
        <source>{0}「{1}」</source>
        <translation>{0} “{1}”</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="179" />
        <source>已重做：{0}</source>
        <translation>Redone: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/memory_undo.py" line="180" />
        <source>已撤销：{0}</source>
        <translation>Undone: {0}</translation>
    </message>
</context>
<context>
    <name>MemoryWall</name>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="384" />
        <source>正在载入记忆…</source>
        <translation>Loading memories…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="321" />
        <source>记忆库暂时无法读取，卡片墙是空的；没有任何内容被改动。</source>
        <translation>The memory store cannot be read right now, so the wall is empty; nothing was changed.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="323" />
        <source>还没有记忆。和 Sonetto 聊聊，或点「新建」写下一条。</source>
        <translation>No memories yet. Chat with Sonetto, or click “New” to write one.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="325" />
        <source>没有「{0}」的记忆。</source>
        <translation>No memories for “{0}”.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="327" />
        <source>正在准备拼音搜索…（第一次用拼音搜很多记忆时要几秒）</source>
        <translation>Getting pinyin search ready… (the first pinyin search over many memories takes a few seconds)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="329" />
        <source>没有和「{0}」匹配的记忆。</source>
        <translation>No memory matches “{0}”.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="356" />
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="357" />
        <source>1 条</source>
        <translation>1 memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="341" />
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="369" />
        <source>排序中 {0}%</source>
        <translation>Sorting {0}%</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="176" />
        <source>搜索记忆墙</source>
        <translation>Search the memory wall</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="341" />
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="371" />
        <source>筛选中 {0}%</source>
        <translation>Filtering {0}%</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="342" />
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="373" />
        <source>载入中 {0}%</source>
        <translation>Loading {0}%</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="380" />
        <source>正在排序… {0} / {1}</source>
        <translation>Sorting… {0} / {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="380" />
        <source>正在排序…</source>
        <translation>Sorting…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="382" />
        <source>正在筛选… {0} / {1}</source>
        <translation>Filtering… {0} / {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="382" />
        <source>正在筛选…</source>
        <translation>Filtering…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="384" />
        <source>正在载入记忆… {0} / {1}</source>
        <translation>Loading memories… {0} / {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="352" />
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="353" />
        <source>{0} / {1} 条</source>
        <translation>{0} of {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="356" />
        <location filename="../../sonetto_desktop/ui/wall/memory_wall.py" line="357" />
        <source>{0} 条</source>
        <translation>{0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="271" />
        <source>这条记忆已经不在了（可能刚被删除或合并）。可以把你写的内容另存为一条新记忆。</source>
        <translation>This memory is gone (it may have just been deleted or merged). You can save what you wrote as a new memory.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="328" />
        <source>合并前，这条记忆刚被改过：{0}</source>
        <translation>Before the merge, this memory just changed: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="330" />
        <source>你写的合并内容还在，请对照现在的内容再确认。</source>
        <translation>Your merged text is still here: check it against the texts as they are now.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="331" />
        <source>已按现在的内容重新填写，请再确认。</source>
        <translation>Filled in again from the texts as they are now: please check.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="376" />
        <source>要保留的那条记忆已经不在了（可能刚被删除或合并），没有合并任何内容。可以把合并后的内容另存为一条新记忆。</source>
        <translation>The memory to keep is gone (it may just have been deleted or merged); nothing was merged. You can save the merged text as a new memory.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="398" />
        <source>已删除：{0}</source>
        <translation>Deleted: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="400" />
        <source>已删除 {0} 条记忆</source>
        <translation>Deleted {0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="404" />
        <source>撤销</source>
        <translation>Undo</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="460" />
        <source>已经在「{0}」里了。要合并，就把它拖到另一张卡片上。</source>
        <translation>Already in “{0}”. To merge, drop it on another card.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="486" />
        <source>移动到新主题</source>
        <translation>Move to a new theme</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="487" />
        <source>新主题的名字：</source>
        <translation>Name of the new theme:</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="492" />
        <source>移动到…</source>
        <translation>Move to…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="499" />
        <source>{0}（{1}）</source>
        <translation>{0} ({1})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="503" />
        <source>新主题…</source>
        <translation>New theme…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="515" />
        <source>展开</source>
        <translation>Expand</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="516" />
        <source>折叠</source>
        <translation>Collapse</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="519" />
        <source>重命名主题…</source>
        <translation>Rename theme…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="522" />
        <source>更改颜色…</source>
        <translation>Change colour…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="525" />
        <source>恢复默认颜色</source>
        <translation>Default colour</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="534" />
        <source>「{0}」的颜色</source>
        <translation>Colour of “{0}”</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="551" />
        <source>已选 {0} 条，其中 {1} 条不在视野内</source>
        <translation>{0} selected, {1} of them out of sight</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="557" />
        <source>删除</source>
        <translation>Delete</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="559" />
        <source>删除 {0} 条</source>
        <translation>Delete {0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="563" />
        <source>锁定</source>
        <translation>Lock</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="564" />
        <source>锁定 {0} 条</source>
        <translation>Lock {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="566" />
        <source>解锁</source>
        <translation>Unlock</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="567" />
        <source>解锁 {0} 条</source>
        <translation>Unlock {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="570" />
        <source>置顶</source>
        <translation>Pin to the top</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="571" />
        <source>置顶 {0} 条</source>
        <translation>Pin {0} to the top</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="573" />
        <source>取消置顶</source>
        <translation>Unpin</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="574" />
        <source>取消置顶 {0} 条</source>
        <translation>Unpin {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="576" />
        <source>合并这 2 条</source>
        <translation>Merge these 2</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="582" />
        <source>编辑</source>
        <translation>Edit</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="583" />
        <source>历史</source>
        <translation>History</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="579" />
        <source>与…合并</source>
        <translation>Merge with…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="217" />
        <source>你编辑这条记忆的时候，它在 {0} 上被改过了。</source>
        <translation>This memory was changed on {0} while you were editing it.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="218" />
        <source>你编辑这条记忆的时候，它被改过了。</source>
        <translation>This memory was changed while you were editing it.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="221" />
        <source>现在的内容：
{0}

你写的内容：
{1}</source>
        <translation>Now:
{0}

Yours:
{1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="224" />
        <source>现在的主题：{0}
你写的主题：{1}</source>
        <translation>Theme now: {0}
Your theme: {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="225" />
        <source>用你写的覆盖现在的吗？</source>
        <translation>Replace it with what you wrote?</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="226" />
        <source>这条记忆刚被改过</source>
        <translation>This memory just changed</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="227" />
        <source>覆盖</source>
        <translation>Replace</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/actions.py" line="591" />
        <source>复制</source>
        <translation>Copy</translation>
    </message>
</context>
<context>
    <name>MergeDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/merge.py" line="46" />
        <source>{0}（{1}）</source>
        <translation>{0} ({1})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/merge.py" line="63" />
        <source>合并记忆</source>
        <translation>Merge memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/merge.py" line="100" />
        <source>为什么合并（可选，会记入历史）</source>
        <translation>Why merge (optional, kept in the history)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/merge.py" line="106" />
        <source>保留</source>
        <translation>Keep</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/merge.py" line="107" />
        <source>并入</source>
        <translation>Merge in</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/merge.py" line="108" />
        <source>合并后</source>
        <translation>Merged</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/merge.py" line="110" />
        <source>主题</source>
        <translation>Theme</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/merge.py" line="111" />
        <source>原因</source>
        <translation>Reason</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/merge.py" line="166" />
        <source>从列表里选出要并入的那条记忆。</source>
        <translation>Pick the memory to merge in from the list.</translation>
    </message>
</context>
<context>
    <name>MessageBubble</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="145" />
        <source>重试</source>
        <extracomment>A chip that must show where its memory differs from another's keeps this much of its start. ... and steps back at most this far to start the part that differs at a word's start.</extracomment>
        <translation>Retry</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="173" />
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="331" />
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="332" />
        <source>复制</source>
        <translation>Copy</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="176" />
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="216" />
        <source>编辑后重新发送</source>
        <translation>Edit and send again</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="179" />
        <source>这轮的记忆</source>
        <translation>This turn's memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="182" />
        <source>撤销这轮的记忆变化</source>
        <translation>Undo this turn's memory changes</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="184" />
        <source>别记住这个</source>
        <translation>Don't remember this</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="190" />
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="401" />
        <source>重新生成</source>
        <translation>Regenerate</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="216" />
        <source>回复结束后才能编辑这条消息</source>
        <translation>This message can be edited once its reply has ended</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="217" />
        <source>这条消息不能编辑</source>
        <translation>This message cannot be edited</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="312" />
        <source>思考中…</source>
        <translation>Thinking…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="324" />
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="325" />
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="337" />
        <source>已复制</source>
        <translation>Copied</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="372" />
        <source>这条记忆已不在了（已忘掉或合并）</source>
        <translation>This memory is gone (forgotten or merged)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="379" />
        <source>在记忆墙上查看</source>
        <translation>Show on the memory wall</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="380" />
        <source>忘掉这条</source>
        <translation>Forget this</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="400" />
        <source>等正在进行的回复结束后才能重试</source>
        <translation>Can be retried once the reply in progress has ended</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="401" />
        <source>等正在进行的回复结束后才能重新生成</source>
        <translation>Can be regenerated once the reply in progress has ended</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="419" />
        <source>已停止</source>
        <translation>Stopped</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/message_bubble.py" line="355" />
        <source>{0}：{1}</source>
        <translation>{0}: {1}</translation>
    </message>
</context>
<context>
    <name>OperationErrors</name>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="127" />
        <source>没有撤销：之后又有改动碰到了其中 {0} 条记忆（{1}）。可以在历史里逐条还原。</source>
        <translation>Not undone: later changes touched {0} of these memories ({1}). You can revert them one by one in their history.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="130" />
        <source>已经没有可撤销的变化了。</source>
        <translation>Nothing is left to undo.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="132" />
        <source>找不到这条记忆，它可能已被删除或移动。</source>
        <translation>This memory can't be found; it may have been deleted or moved.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="136" />
        <source>另一个程序（另一个 Sonetto 或 sonetto mcp）占着记忆库超过 {0} 秒，没有做任何修改：请稍后再试；一直这样的话，关掉卡住的那个程序。</source>
        <translation>Another program (another Sonetto or sonetto mcp) has held the memory store for over {0} seconds; nothing was changed. Try again in a moment; if it keeps happening, close the program that is stuck.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="139" />
        <source>记忆库正在切换（换了数据文件夹或存储方式），这次的改动没有保存：切换完成后再试一次。</source>
        <translation>The memory store is being switched (another data folder or storage was chosen); this change was not saved: try again once the switch is done.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="141" />
        <source>没有保存，什么都没有改动：{0}（{1}）</source>
        <translation>Not saved, nothing was changed: {0} ({1})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="143" />
        <source>没有保存，什么都没有改动：记忆服务器暂时连不上，现在只能查看。它回来后会自动重新连上，到时再试一次。</source>
        <translation>Not saved, nothing was changed: the memory server can't be reached, so memories are read-only for now. Sonetto reconnects by itself once it is back; try again then.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="145" />
        <source>数据文件夹 {0} 是只读的，写不进去，没有做任何修改：记忆可以查看和导出，让这个文件夹能写入后才能修改</source>
        <translation>The data folder {0} is read-only (it cannot be written); nothing was changed: memories can be viewed and exported, and changed again once the folder can be written</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="148" />
        <source>记忆库是只读的，没有做任何修改：记忆可以查看和导出，不能修改（{0}）</source>
        <translation>The memory store is read-only; nothing was changed: memories can be viewed and exported, not changed ({0})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="151" />
        <source>记忆库文件无法读取，没有做任何修改：{0}</source>
        <translation>The memory store file can't be read, so nothing was changed: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="153" />
        <source>这条提议已撤回：它来自的对话（{0}）已经撤销，不能再批准。</source>
        <translation>This proposal was withdrawn: the conversation it came from ({0}) was undone, so it can no longer be approved.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="157" />
        <source>没有批准：你看过之后，这条记忆又被改过（现在是“{0}”），你改写的内容会盖掉新的内容。它仍留在列表里，已列出现在的内容：可以拒绝，或对照着再改写后批准。</source>
        <translation>Not approved: this memory was changed after you were shown it (it now reads “{0}”); your rewording would overwrite the newer words. It stays in the list, now showing what it reads: reject it, or reword it against that and approve.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="162" />
        <source>没有批准：提议之后，这条记忆又被改过（现在是“{0}”），照原样批准会盖掉新的内容。它仍留在列表里：可以拒绝，或改写后批准。</source>
        <translation>Not approved: this memory was changed after the proposal was made (it now reads “{0}”); approving it as proposed would overwrite the newer words. It stays in the list: reject it, or reword it and approve.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="167" />
        <source>无法批准：这个版本不知道怎样完成这条提议（{0}）。可以拒绝它，它不会被写入。</source>
        <translation>Can't approve: this version doesn't know how to carry out this proposal ({0}). You can reject it; it won't be written.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="169" />
        <source>这条提议已无法照原样完成（相关的记忆可能已经变了），没有写入，仍留在列表里。</source>
        <translation>This proposal can no longer be carried out as proposed (the memories it concerns may have changed); nothing was written and it stays in the list.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="172" />
        <source>这次导入正在另一个 Sonetto（窗口或命令行）里进行，没有撤销：请先在那里停止它。</source>
        <translation>Not undone: this import is being written by another Sonetto (the window or a command line). Stop it there first.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="175" />
        <source>没有写入：你要求过不要记住“{0}”这类内容（在“不要记住”列表里）。</source>
        <translation>Not stored: you asked not to remember things like “{0}” (it is on your don't-remember list).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="178" />
        <source>没有写入：内容疑似包含{0}，秘密信息不会写进记忆。去掉具体的值再试。</source>
        <translation>Not stored: this looks like it holds a secret ({0}); secrets are never stored. Leave the value out and try again.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="181" />
        <source>这一项已经被处理过了（可能在另一个窗口里）。</source>
        <translation>This has already been taken care of (perhaps in another window).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="201" />
        <source>{0}不能是空的</source>
        <translation>{0} must be a non-empty string</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="203" />
        <source>{0}有 {1} 个字，超过了上限 {2} 字</source>
        <translation>{0} is {1} characters long; the limit is {2}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="318" />
        <source>密码</source>
        <translation>password</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="320" />
        <source>验证码</source>
        <translation>verification code</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="322" />
        <source>密钥</source>
        <translation>key</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="324" />
        <source>私钥</source>
        <translation>private key</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="326" />
        <source>身份证号</source>
        <translation>ID number</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="328" />
        <source>证件号</source>
        <translation>document number</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="330" />
        <source>银行卡号</source>
        <translation>bank card number</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="332" />
        <source>银行账号</source>
        <translation>bank account number</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="333" />
        <source>秘密信息</source>
        <translation>secret</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="357" />
        <source>磁盘已满</source>
        <extracomment>The words ``memory.errors.describe_os_error`` gives a store's failure (``StoreWriteFailed.detail``), by the error they stand for.</extracomment>
        <translation>the disk is full</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="359" />
        <source>文件超过了系统允许的大小（文件大小限制）</source>
        <translation>the file is larger than the system allows (file size limit)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="361" />
        <source>磁盘或文件夹是只读的</source>
        <translation>the disk or folder is read-only</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="363" />
        <source>没有权限</source>
        <translation>permission denied</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="365" />
        <source>找不到这个文件</source>
        <translation>no such file</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="367" />
        <source>这是一个文件夹，不是文件</source>
        <translation>it is a folder, not a file</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="369" />
        <source>路径里应是文件夹的地方是一个文件</source>
        <translation>a file stands where the path needs a folder</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="38" />
        <source>输入无效：{0}</source>
        <translation>Invalid input: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="40" />
        <source>记忆库出错：{0}</source>
        <translation>Memory store error: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="42" />
        <source>读写文件或连接失败：{0}</source>
        <translation>A file or connection failed: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="43" />
        <source>操作失败：{0}</source>
        <translation>The operation failed: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="81" />
        <source>回收站</source>
        <translation>trash</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="82" />
        <source>记忆库</source>
        <translation>memory store</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="83" />
        <source>{0}里没有 id 为 {1} 的记忆</source>
        <translation>no memory with id {1} in the {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="85" />
        <source>轮次 {0} 没有留下可撤销的变化</source>
        <translation>turn {0} left no change to undo</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="87" />
        <source>文件：{0}</source>
        <translation>file: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="89" />
        <source>；上一个完好的版本在 {0}</source>
        <translation>; the last good version is in {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="92" />
        <source>记忆库：{0}</source>
        <translation>memory store: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="94" />
        <source>改过的记忆：{0}</source>
        <translation>changed memories: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="104" />
        <source>{0} 不是普通文件</source>
        <translation>{0} is not a regular file</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="106" />
        <source>{0} 是指向 {1} 的链接：链接不会被跟随</source>
        <translation>{0} is a link to {1}: links are not followed</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="108" />
        <source>{0} 有 {1} MB，超过了 YAML 记忆库能读的 {2} MB（这么大的记忆库请改用 SQLite：设置里的存储方式）</source>
        <translation>{0} is {1} MB, more than the {2} MB a YAML store reads (a store this large belongs in SQLite: the storage in the settings)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="134" />
        <source>记忆刚被改过，没有保存：请看过它现在的内容再改。</source>
        <translation>The memory just changed, so nothing was saved: look at it as it is now before changing it.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="195" />
        <source>{0}（{1}）</source>
        <translation>{0} ({1})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/errors.py" line="205" />
        <source>出了意外的问题，详情已写入日志。</source>
        <translation>something unexpected went wrong; the details are in the log.</translation>
    </message>
</context>
<context>
    <name>OthersNotice</name>
    <message>
        <location filename="../../sonetto_desktop/presentation/others.py" line="44" />
        <source>导入（{0}）</source>
        <translation>Import ({0})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/others.py" line="46" />
        <source>命令行</source>
        <translation>Command line</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/others.py" line="48" />
        <source>{0}（其他应用）</source>
        <translation>{0} (another app)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/others.py" line="50" />
        <source>其他程序</source>
        <translation>Another program</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/others.py" line="51" />
        <source>其他程序（{0}）</source>
        <translation>Another program ({0})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/others.py" line="95" />
        <source>新增 {0} 条记忆</source>
        <translation>added {0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/others.py" line="97" />
        <source>修改 {0} 条记忆</source>
        <translation>changed {0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/others.py" line="99" />
        <source>合并 {0} 处记忆</source>
        <translation>merged {0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/others.py" line="101" />
        <source>删除 {0} 条记忆</source>
        <translation>deleted {0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/others.py" line="104" />
        <source>{0}（在 {1} 上）</source>
        <translation>{0} (on {1})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/others.py" line="105" />
        <source>{0}：{1}</source>
        <translation>{0}: {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/others.py" line="105" />
        <source>，</source>
        <translation>, </translation>
    </message>
</context>
<context>
    <name>PostgresPage</name>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="48" />
        <source>在几台电脑上使用同一份记忆：记忆保存在你指定的 PostgreSQL 服务器上（家里 NAS 上的 Docker、或托管的云数据库），每台电脑上的改动会立刻出现在其他电脑上。注意：记忆将存放在该服务器上，请只使用你信任的服务器。</source>
        <translation>One memory on several computers: the memories live on a PostgreSQL server you choose (Docker on a home NAS, or a hosted database), and a change on one computer appears on the others at once. Note: your memories are then stored on that server; use only a server you trust.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="58" />
        <source>保存在系统钥匙串中，不写进设置文件</source>
        <translation>Kept in the system keyring, never in the settings file</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="60" />
        <source>自动（服务器支持就加密）</source>
        <translation>Automatic (encrypt when the server can)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="60" />
        <source>必须加密</source>
        <translation>Always encrypt</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="61" />
        <source>加密并校验服务器证书</source>
        <translation>Encrypt and verify the server certificate</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="61" />
        <source>不加密（仅限本机/内网）</source>
        <translation>No encryption (this computer / home network only)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="65" />
        <source>同一个数据库里可以放几个人的记忆，各用一个名字（小写字母、数字、下划线）。</source>
        <translation>One database can hold several people's memories, each under its own name (lower-case letters, digits, underscores).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="68" />
        <source>聊天记录也保存在服务器上（换一台电脑可以接着聊）</source>
        <translation>Keep the chats on the server too (continue a conversation on another computer)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="69" />
        <source>测试服务器连接</source>
        <translation>Test the server connection</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="78" />
        <source>在“记忆”页把存储方式选为 PostgreSQL 后保存即可。服务器上还没有记忆时，本机的记忆（含历史和回收站）会完整迁移过去；以后切换回本地存储时，服务器上的记忆会复制回本机（服务器上的仍然保留）。服务器连不上时，应用用本机副本只读打开，聊天照常，新记忆等服务器恢复后自动写入。</source>
        <translation>Choose PostgreSQL as the storage on the Memory page and save. If the server holds no memories yet, this computer's memories (with their history and the trash) move there in full; switching back to local storage later copies the server's memories back to this computer (the server keeps its copy). When the server cannot be reached, the app opens read-only from this computer's copy; chatting goes on, and new memories are written once the server is back.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="85" />
        <source>服务器地址</source>
        <translation>Server URL</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="86" />
        <source>密码</source>
        <translation>Password</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="87" />
        <source>加密（TLS）</source>
        <translation>Encryption (TLS)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="88" />
        <source>记忆库名称</source>
        <translation>Memory library name</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="89" />
        <source>本机名称</source>
        <translation>This computer's name</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="95" />
        <source>多设备</source>
        <translation>Devices</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="99" />
        <source>PostgreSQL（多设备）</source>
        <translation>PostgreSQL (several computers)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="112" />
        <source>由环境变量 SONETTO_POSTGRES_URL 设置</source>
        <translation>Set by the environment variable SONETTO_POSTGRES_URL</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="137" />
        <source>正在连接…</source>
        <translation>Connecting…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="156" />
        <source>连接成功：PostgreSQL %1（TLS 加密），%2，用时 %3 毫秒。</source>
        <translation>Connected: PostgreSQL %1 (TLS), %2, %3 ms.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="157" />
        <source>连接成功：PostgreSQL %1（未加密），%2，用时 %3 毫秒。</source>
        <translation>Connected: PostgreSQL %1 (not encrypted), %2, %3 ms.</translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="158" />
        <source>已有 %Ln 条记忆</source>
        <translation><numerusform>1 memory stored</numerusform><numerusform>%Ln memories stored</numerusform></translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/postgres_page.py" line="159" />
        <source>记忆库尚未建立（首次使用时会自动创建）</source>
        <translation>no memories yet (created on first use)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="27" />
        <source>地址有误，应像 postgresql://用户名@服务器:5432/数据库</source>
        <translation>Bad URL: it should look like postgresql://user@server:5432/database</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="29" />
        <source>缺少 PostgreSQL 组件：pip install 'sonetto-desktop[postgres]'</source>
        <translation>PostgreSQL support is not installed: pip install 'sonetto-desktop[postgres]'</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="31" />
        <source>TLS 加密连接没有建立：服务器不支持 TLS，或证书不被信任。可以换一个 TLS 设置再试</source>
        <translation>No TLS connection could be made: the server does not support TLS, or its certificate is not trusted. Try another TLS setting</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="33" />
        <source>服务器在限定时间内没有回答：请检查地址、端口和网络</source>
        <translation>The server did not answer in time: check the address, the port and the network</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="35" />
        <source>服务器不接受这个用户名和密码：请检查密码</source>
        <translation>The server does not accept this user name and password: check the password</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="37" />
        <source>服务器不允许这台电脑或这个用户连接（看它的 pg_hba.conf 设置，或连接数已满）</source>
        <translation>The server does not let this computer or this user connect (see its pg_hba.conf, or it has too many connections)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="39" />
        <source>服务器上没有名为 %1 的数据库：请先建好它，或改一下地址最后的数据库名</source>
        <translation>The server has no database named %1: create it first, or change the database name at the end of the URL</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="41" />
        <source>服务器上没有名为 %1 的用户</source>
        <translation>The server has no user named %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="43" />
        <source>这个用户没有读取记忆库的权限</source>
        <translation>This user may not read the memory store</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="45" />
        <source>连不上服务器：它没有运行，或地址、端口不对</source>
        <translation>Cannot reach the server: it is not running, or the address or port is wrong</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="47" />
        <source>连接失败（服务器说的原因见提示）</source>
        <translation>Could not connect (the server's reason is in the tooltip)</translation>
    </message>
</context>
<context>
    <name>ProviderPicker</name>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/provider_picker.py" line="75" />
        <source>选择服务商…</source>
        <translation>Choose a provider…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/provider_picker.py" line="84" />
        <source>自定义</source>
        <translation>Custom</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/provider_picker.py" line="93" />
        <source>使用</source>
        <translation>Use</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/provider_picker.py" line="136" />
        <source>%1 的 API 密钥</source>
        <translation>Your %1 API key</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/provider_picker.py" line="138" />
        <source>本地模型可以留空</source>
        <translation>Leave empty for local models</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/provider_picker.py" line="203" />
        <source>没有找到本机的 %1：请先启动它（或在下面填写它的地址）。</source>
        <translation>%1 isn't running on this computer: start it first (or enter its address below).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/provider_picker.py" line="233" />
        <source>发现本机的 %1</source>
        <translation>Found %1 on this computer</translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/settings/provider_picker.py" line="233" />
        <source>（%Ln 个模型）</source>
        <translation><numerusform> (1 model)</numerusform><numerusform> (%Ln models)</numerusform></translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/provider_picker.py" line="235" />
        <source>发现本机的 %1，但它只有向量模型，还没有对话模型。</source>
        <translation>Found %1 on this computer, but it has only embeddings models, no chat model yet.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/provider_picker.py" line="237" />
        <source>发现本机的 %1，但它还没有模型。</source>
        <translation>Found %1 on this computer, but it has no models yet.</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/widgets/file_dialogs.py" line="17" />
        <source>Look in:</source>
        <translation>Look in:</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/widgets/file_dialogs.py" line="18" />
        <source>Files of type:</source>
        <translation>Files of type:</translation>
    </message>
</context>
<context>
    <name>QuickChat</name>
    <message>
        <location filename="../../sonetto_desktop/ui/tray/quick_chat.py" line="50" />
        <location filename="../../sonetto_desktop/ui/tray/quick_chat.py" line="62" />
        <source>快速对话</source>
        <translation>Quick chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/tray/quick_chat.py" line="70" />
        <source>关闭 (Esc)</source>
        <translation>Close (Esc)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/tray/quick_chat.py" line="121" />
        <source>新对话</source>
        <translation>New chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/tray/quick_chat.py" line="122" />
        <source>临时对话</source>
        <translation>Temporary chat</translation>
    </message>
</context>
<context>
    <name>RecallCost</name>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_cost.py" line="32" />
        <source>现在还没有记忆：回忆不调用模型，不花 token。</source>
        <translation>No memories yet: recall asks no model and costs no tokens.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_cost.py" line="34" />
        <source>{0} 分词器计</source>
        <translation>counted with the {0} tokenizer</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_cost.py" line="34" />
        <source>按 {0} 分词器的比例估算</source>
        <translation>estimated at the {0} tokenizer's measured ratio</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_cost.py" line="37" />
        <source>估算：不知道这个模型的分词器</source>
        <translation>an estimate: this model's tokenizer is not known</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_cost.py" line="39" />
        <source>；额度按估算的 token 算，这个分词器数出来更多</source>
        <translation>; the allowance is in estimated tokens, and this tokenizer counts more</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_cost.py" line="41" />
        <source>按现在的 {0} 条记忆，回忆每条消息读全部记忆（约 {1} token），加上给模型的说明和你的消息，约发送 {2} token（{3}）</source>
        <translation>With your {0} memories, recall reads all of them for each message (about {1} tokens); with the instructions to the model and your message, it sends about {2} tokens ({3})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_cost.py" line="44" />
        <source>按现在的 {0} 条记忆（超出额度），回忆每条消息读额度以内的记忆约 {1} token，加上给模型的说明和你的消息，约发送 {2} token（{3}）</source>
        <translation>With your {0} memories (more than the allowance), recall reads about {1} tokens of memories, within the allowance, for each message; with the instructions to the model and your message, it sends about {2} tokens ({3})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_cost.py" line="48" />
        <source>。本机运行，不花钱。</source>
        <translation>. It runs on this computer: it costs nothing.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_cost.py" line="50" />
        <source>，其中约 {0}% 与上一条相同，支持前缀缓存的服务按缓存价计。</source>
        <translation>, about {0}% of it the same as for the previous message, billed at the cached price by services with a prefix cache. </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_cost.py" line="52" />
        <source>不知道这个服务的价格，只显示 token 数。</source>
        <translation>The service's price is not known, so only tokens are shown.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_cost.py" line="55" />
        <source>约每条 {0}，每 100 条 {1}（{2} 标价，仅输入）。</source>
        <translation>About {0} per message, {1} per 100 messages ({2} list price, input only).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_cost.py" line="56" />
        <source>约每条 {0}，每 100 条 {1}（按你设置的价格，仅输入）。</source>
        <translation>About {0} per message, {1} per 100 messages (at the price you set, input only).</translation>
    </message>
</context>
<context>
    <name>RecallCostLine</name>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_cost_line.py" line="60" />
        <source>回忆额度的单位是估算的 token：每个汉字和数字算 1 个，其他字符每 4 个算 1 个。这里的 token 数按这个服务的分词器数，和账单上的一致。</source>
        <translation>The recall allowance is in estimated tokens: one per Chinese character and digit, one per four other characters. The tokens here are counted with this service's tokenizer, as on its bill.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_cost_line.py" line="88" />
        <source>回忆方式是本地检索：回忆只在这台电脑上按字面找记忆，不调用模型，不花 token。</source>
        <translation>Recall is set to local search: it finds memories by their words on this computer, asks no model and costs no tokens.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_cost_line.py" line="92" />
        <source>还没有设置对话模型：回忆只在这台电脑上按字面找记忆，不花 token。</source>
        <translation>No chat model is set yet: recall finds memories by their words on this computer and costs no tokens.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_cost_line.py" line="98" />
        <source>正在统计记忆的 token…</source>
        <translation>Counting the memories' tokens…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_cost_line.py" line="117" />
        <source>现在统计不了记忆的 token：%1</source>
        <translation>Cannot count the memories' tokens now: %1</translation>
    </message>
</context>
<context>
    <name>RecallNotices</name>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_notices.py" line="20" />
        <source>本机模型 {0} 最多只读 {1} tokens：回忆每次只能看约 {2} tokens 的记忆，会漏掉不少。换一个上下文更长的模型（{3} 以上）回忆会好很多</source>
        <translation>The local model {0} reads at most {1} tokens: recall can show it only about {2} tokens of memories each time and misses many. A model with a longer context ({3} or more) recalls much better</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_notices.py" line="25" />
        <source>在 Ollama 的设置里把 Context length 调到 {0} 以上，或用环境变量 OLLAMA_CONTEXT_LENGTH={0} 启动 ollama serve</source>
        <translation>In Ollama's settings set Context length to {0} or more, or start ollama serve with OLLAMA_CONTEXT_LENGTH={0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_notices.py" line="28" />
        <source>在 LM Studio 加载模型时把 Context Length 调到 {0} 以上</source>
        <translation>When loading the model in LM Studio, set Context Length to {0} or more</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_notices.py" line="30" />
        <source>启动 llama-server 时加上 -c {0}</source>
        <translation>Start llama-server with -c {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_notices.py" line="32" />
        <source>在本机模型服务里把上下文长度调到 {0} 以上</source>
        <translation>Set the context length of your local model server to {0} or more</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/recall_notices.py" line="33" />
        <source>本机模型 {0} 的上下文只有 {1} tokens：回忆每次只能看约 {2} tokens 的记忆，会漏掉不少。{3}</source>
        <translation>The local model {0} has a context of only {1} tokens: recall can show it only about {2} tokens of memories each time and misses many. {3}</translation>
    </message>
</context>
<context>
    <name>RecallPage</name>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="128" />
        <source>回复之前，Sonetto 先请模型把记忆读一遍，挑出和这句话有关的。记忆不多时模型读全部记忆；多到超出下面的额度时，读最近的一部分，再加上和这句话最可能相关的那些。</source>
        <translation>Before replying, Sonetto has the model read the memories and pick those that matter for the message. With few memories the model reads all of them; beyond the allowance below, it reads the most recent ones plus those most likely to matter for the message.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="144" />
        <source>每条消息回忆时最多读多少 token 的记忆。额度越大，越少漏掉记忆，但每条消息更贵、更慢（支持前缀缓存的服务会便宜很多）。</source>
        <translation>How many tokens of memories recall may read per message. A larger allowance misses fewer memories but makes each message cost more and take longer (much less with a service that caches prompt prefixes).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="168" />
        <source>自定义</source>
        <translation>Custom</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="181" />
        <source>留空：与对话模型相同</source>
        <translation>Empty: the same as the chat model</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="184" />
        <source>留空：与对话模型相同（仅当服务地址也相同）</source>
        <translation>Empty: the chat model's (only when the base URL is the same too)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="190" />
        <source>模型默认</source>
        <translation>Model default</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="130" />
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="193" />
        <source>自动</source>
        <translation>Automatic</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="194" />
        <source> 次/分钟</source>
        <translation> per minute</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="215" />
        <source>测试向量模型</source>
        <translation>Test embeddings model</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="99" />
        <source>按意思回忆（向量模型）</source>
        <translation>Recall by meaning (embeddings model)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="132" />
        <source>云端模型 %1（记忆不超过它时读全部）；本机模型 %2，受它的上下文长度所限。</source>
        <translation>A cloud model %1 (every memory when they fit in it); a local model %2, within its context length.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="152" />
        <source>内置模型（在这台电脑上计算，不用联网，不用设置）</source>
        <translation>Built-in model (computed on this computer: no network, nothing to set up)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="153" />
        <source>向量服务（OpenAI 兼容的 /v1/embeddings 接口）</source>
        <translation>Embeddings service (an OpenAI-compatible /v1/embeddings endpoint)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="154" />
        <source>不用向量模型：只按字面回忆</source>
        <translation>No embeddings model: recall by the words only</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="173" />
        <source>列出本机服务的向量模型</source>
        <translation>List the local service's embeddings models</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="174" />
        <source>对话模型在本机（Ollama、LM Studio）时，列出它已有的向量模型</source>
        <translation>When the chat model runs on this computer (Ollama, LM Studio), list the embeddings models it has</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="199" />
        <source>向量服务会收到每条记忆的文字（在后台计算向量，新的和改过的记忆随时补上，删除的记忆连同向量一起删除）和你说的话；如果它和对话模型不是同一家服务，记忆也会发给这家服务。</source>
        <translation>The embeddings service receives the text of every memory (vectors are computed in the background, new and changed memories as they come, and a deleted memory's vector goes with it) and what you say; if it is not the chat model's service, your memories go to this service too.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="203" />
        <source>预设</source>
        <translation>Preset</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="206" />
        <source>服务地址</source>
        <translation>Base URL</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="206" />
        <source>API 密钥</source>
        <translation>API key</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="207" />
        <source>模型</source>
        <translation>Model</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="207" />
        <source>向量维度</source>
        <translation>Dimensions</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="208" />
        <source>请求频率上限</source>
        <translation>Request limit</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="147" />
        <source>回忆额度</source>
        <translation>Recall allowance</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="230" />
        <source>回忆</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="257" />
        <source>内置模型：%1。</source>
        <translation>Built-in model: %1.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="259" />
        <source>没有内置模型时，用填好的向量服务，否则只按字面回忆。</source>
        <translation>Without a built-in model, the embeddings service filled in is used; otherwise recall goes by the words only.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="271" />
        <source>这台电脑（%1）：内置模型 %2，在本机计算，记忆不离开这台电脑。第一次会在后台为每条记忆计算向量。</source>
        <translation>This computer (%1): built-in model %2, computed here; your memories do not leave this computer. The first time, a vector is computed for every memory in the background.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="274" />
        <source>这台电脑（%1）没有内置模型：改用下面填好的向量服务 %2。</source>
        <translation>This computer (%1) has no built-in model: the embeddings service %2 below is used instead.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="277" />
        <source>这台电脑（%1）没有内置模型：回忆只按字面找记忆。可以在下面填一个向量服务（比如 Ollama 的 bge-m3）。</source>
        <translation>This computer (%1) has no built-in model: recall finds memories by their words only. You can fill in an embeddings service below (for example Ollama's bge-m3).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="280" />
        <source>回忆用向量服务 %1 按意思找记忆。</source>
        <translation>Recall finds memories by meaning with the embeddings service %1.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="282" />
        <source>请在下面填写向量服务。</source>
        <translation>Please fill in the embeddings service below.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="283" />
        <source>回忆只按字面找记忆。</source>
        <translation>Recall finds memories by their words only.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="327" />
        <source>对话模型不在本机：只能列出本机的 Ollama 或 LM Studio 的模型。</source>
        <translation>The chat model is not on this computer: only a local Ollama's or LM Studio's models can be listed.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="330" />
        <source>正在询问 %1…</source>
        <translation>Asking %1…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="346" />
        <source>%1 没有回答 Ollama 或 LM Studio 的模型列表。</source>
        <translation>%1 did not answer with an Ollama or LM Studio model list.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="348" />
        <source>%1 上没有向量模型。Ollama 可以先运行 ollama pull bge-m3。</source>
        <translation>%1 has no embeddings model. With Ollama, run ollama pull bge-m3 first.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="351" />
        <source>选择 %1 的向量模型…</source>
        <translation>Choose an embeddings model of %1…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="355" />
        <source>%1 有 %2 个向量模型。</source>
        <translation>%1 has %2 embeddings models.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="357" />
        <source>（服务没有说明哪些是向量模型：按名称挑出）</source>
        <translation>(the service does not say which are embeddings models: picked by name)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="404" />
        <source>请先填写向量模型的名称和服务地址。</source>
        <translation>Enter the embeddings model's name and base URL first.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="405" />
        <source>没有选用向量模型。</source>
        <translation>No embeddings model chosen.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="408" />
        <source>正在连接…</source>
        <translation>Connecting…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="408" />
        <source>正在加载内置模型…</source>
        <translation>Loading the built-in model…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="430" />
        <source>内置向量模型可用：%1 维，%2 毫秒（含加载）</source>
        <translation>The built-in embeddings model works: %1 dimensions, %2 ms (loading included)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="431" />
        <source>向量模型可用：%1 维，%2 毫秒</source>
        <translation>The embeddings model works: %1 dimensions, %2 ms</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="436" />
        <source>内置向量模型在这台电脑上运行不了：%1。回忆只按字面找记忆；可以改用向量服务。</source>
        <translation>The built-in embeddings model does not run on this computer: %1. Recall goes by the words only; an embeddings service can be used instead.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="438" />
        <source>内置向量模型不可用：%1</source>
        <translation>The built-in embeddings model does not work: %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="438" />
        <source>向量模型不可用：%1</source>
        <translation>The embeddings model does not work: %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="449" />
        <source>%1 在 %2 秒内没有回答</source>
        <translation>no answer from %1 within %2 s</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="451" />
        <source>连不上 %1（服务没有运行，或地址不对）</source>
        <translation>cannot reach %1 (the service is not running, or the address is wrong)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="453" />
        <source>服务回答了错误 HTTP %1</source>
        <translation>the service answered HTTP %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="455" />
        <source>它已经关闭</source>
        <translation>it is closed</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="457" />
        <source>回答超过 %1 MB，不是向量模型的回答</source>
        <translation>the answer is larger than %1 MB: not an embeddings model's answer</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="459" />
        <source>回答不是向量接口的格式</source>
        <translation>the answer is not an embeddings response</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="461" />
        <source>要了 %1 个向量，回答了 %2 个</source>
        <translation>asked for %1 vectors, got %2</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="463" />
        <source>回答的向量有 %1 个数，比向量模型给的都多：不是模型的回答</source>
        <translation>the answer has vectors of %1 numbers, more than an embeddings model gives: not the model's answer</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="465" />
        <source>回答的向量长短不一</source>
        <translation>the answer has vectors of different sizes</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="467" />
        <source>回答的向量是空的</source>
        <translation>the answer has empty vectors</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="469" />
        <source>回答的向量有 %1 个数，原有的向量有 %2 个</source>
        <translation>the answer has vectors of %1 numbers, the vectors kept have %2</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="471" />
        <source>回答的向量不全是数字</source>
        <translation>the answer holds vectors that are not numbers</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="473" />
        <source>没有名为 %1 的内置模型</source>
        <translation>there is no built-in model %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="475" />
        <source>加载不了</source>
        <translation>it cannot be loaded</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="477" />
        <source>试着加载它的进程 %1 秒没有完成</source>
        <translation>the process that tried to load it did not finish within %1 s</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="479" />
        <source>加载它的进程崩溃了（%1）：模型文件可能损坏，或这台电脑的处理器不支持它的计算引擎</source>
        <translation>the process that loaded it crashed (%1): its model file may be damaged, or this computer's processor does not support its engine</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="481" />
        <source>加载失败</source>
        <translation>loading it failed</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="482" />
        <source>请求失败</source>
        <translation>the request failed</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="487" />
        <source>。请检查 API 密钥。</source>
        <translation>. Check the API key.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="489" />
        <source>。请检查服务地址和模型名称（旧版 Ollama 没有 /v1/embeddings）。</source>
        <translation>. Check the base URL and the model name (older Ollama versions have no /v1/embeddings).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/recall_page.py" line="491" />
        <source>。这个模型可能不是向量模型，或不支持所填的维度。</source>
        <translation>. The model may not be an embeddings model, or may not accept the dimensions given.</translation>
    </message>
</context>
<context>
    <name>ReviewDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="33" />
        <source>新记住：{0}</source>
        <translation>New memory: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="36" />
        <source>改为：{0}</source>
        <translation>Change to: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="37" />
        <source>移到「{0}」</source>
        <translation>Move to “{0}”</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="39" />
        <source>删除：{0}</source>
        <translation>Delete: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="42" />
        <source>合并为：{0}</source>
        <translation>Merge into: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="43" />
        <source>其他变化（{0}）：{1}</source>
        <translation>Other change ({0}): {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="52" />
        <source>原来：</source>
        <translation>Before: </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="54" />
        <source>现在：</source>
        <translation>Now: </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="55" />
        <source>（已删除）</source>
        <translation>(deleted)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="57" />
        <source>理由：</source>
        <translation>Why: </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="59" />
        <source>来自你说的：</source>
        <translation>From what you said: </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="61" />
        <source>出处：</source>
        <translation>From: </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="74" />
        <source>待审核的记忆变化</source>
        <translation>Memory changes to review</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="80" />
        <source>加载中…</source>
        <translation>Loading…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="84" />
        <source>待审核的提议</source>
        <translation>Proposals to review</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="85" />
        <source>批准</source>
        <translation>Approve</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="86" />
        <source>改写后批准…</source>
        <translation>Rewrite and approve…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="87" />
        <source>拒绝</source>
        <translation>Reject</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="88" />
        <source>全部批准</source>
        <translation>Approve all</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="89" />
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="227" />
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="230" />
        <source>全部拒绝</source>
        <translation>Reject all</translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="140" />
        <source>Sonetto 想做 %Ln 处记忆变化，等你确认。</source>
        <translation><numerusform>Sonetto would like to make 1 memory change; it waits for you.</numerusform><numerusform>Sonetto would like to make %Ln memory changes; they wait for you.</numerusform></translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="141" />
        <source>没有待审核的变化。</source>
        <translation>Nothing to review.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="186" />
        <source>已批准：%1</source>
        <translation>Approved: %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="193" />
        <source>改写后批准</source>
        <translation>Rewrite and approve</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="194" />
        <source>用你的话写这条记忆：</source>
        <translation>Write this memory in your own words:</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="208" />
        <source>已拒绝：%1</source>
        <translation>Rejected: %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="220" />
        <source>已批准 %1 处变化。</source>
        <translation>Approved %1 change(s).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="222" />
        <source>%1 处没能完成，仍在列表里。</source>
        <translation> %1 could not be done and are still listed.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="228" />
        <source>拒绝全部 %1 处待审核的变化？它们不会被写入记忆。</source>
        <translation>Reject all %1 changes waiting for review? They will not be written to memory.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/review.py" line="238" />
        <source>已全部拒绝。</source>
        <translation>All rejected.</translation>
    </message>
</context>
<context>
    <name>ServerWords</name>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="65" />
        <source>记忆服务器拒绝了这台电脑的连接：{0}。在 设置 → 多设备 里改正之前，记忆只能查看，不能新建、修改或删除。</source>
        <translation>The memory server refuses this computer: {0}. Until that is corrected in Settings → Devices, the memories are read-only: nothing can be added, changed or deleted.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="67" />
        <source>记忆服务器现在连不上，记忆只能查看：它回来后才能新建、修改或删除。请检查服务器是否在运行、网络是否通，以及 设置 → 多设备 里的地址。</source>
        <translation>The memory server cannot be reached, so the memories are read-only: adding, changing and deleting work again once it is back. Check that the server is running, the network is up, and the address in Settings → Devices.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="75" />
        <source>记忆都在记忆服务器上，它拒绝了这台电脑的连接：{0}。请在 设置 → 多设备 里改正；在那之前，这里显示不了记忆，也不能新建。</source>
        <translation>The memories are on the memory server, and it refuses this computer: {0}. Correct it in Settings → Devices; until then no memories can be shown here, and none added.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/server_words.py" line="77" />
        <source>记忆都在记忆服务器上，它现在连不上：在它回答之前，这里显示不了记忆，也不能新建。请检查服务器是否在运行、网络是否通，以及 设置 → 多设备 里的地址。</source>
        <translation>The memories are on the memory server, and it cannot be reached: until it answers, no memories can be shown here, and none added. Check that the server is running, the network is up, and the address in Settings → Devices.</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="80" />
        <source>设置</source>
        <extracomment>The settings dialog's height when the screen has room (px): its tallest pages (回忆, 其他应用) scroll.</extracomment>
        <translation>Settings</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="98" />
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="169" />
        <source>模型</source>
        <translation>Model</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="99" />
        <source>记忆</source>
        <translation>Memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="106" />
        <source>外观</source>
        <translation>Appearance</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="111" />
        <source>保存</source>
        <translation>Save</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="112" />
        <source>取消</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="132" />
        <source>留空时 Sonetto 会从记忆里知道</source>
        <translation>Leave empty and Sonetto learns it from the memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="137" />
        <source>本地模型可以留空</source>
        <translation>Leave empty for local models</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="150" />
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="155" />
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="185" />
        <source> 秒</source>
        <translation> s</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="156" />
        <source>模型多久没有开始回复就停止等待；本地模型加载慢时调大</source>
        <translation>How long to wait for the model to start replying; raise it when a local model loads slowly</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="157" />
        <source>测试连接</source>
        <translation>Test connection</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="165" />
        <source>你希望 Sonetto 怎么称呼你</source>
        <translation>What should Sonetto call you</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="166" />
        <source>服务商</source>
        <translation>Provider</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="167" />
        <source>服务地址</source>
        <translation>Endpoint URL</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="168" />
        <source>API 密钥</source>
        <translation>API key</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="170" />
        <source>温度</source>
        <translation>Temperature</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="171" />
        <source>请求超时</source>
        <translation>Request timeout</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="172" />
        <source>首字超时</source>
        <translation>First-token timeout</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="180" />
        <source>混合（推荐）</source>
        <translation>Hybrid (recommended)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="180" />
        <source>本地检索（快，不用模型）</source>
        <translation>Local search (fast, no model)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="181" />
        <source>模型检索</source>
        <translation>Model search</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="191" />
        <source>切换后会把现有记忆（含历史和回收站）完整迁移过去，旧文件保留。</source>
        <translation>Switching moves every memory (with history and trash) to the new store; the old file is kept.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="195" />
        <source>Sonetto 的记忆变化先交给我审核（审核模式）</source>
        <translation>Let me review Sonetto's memory changes first (review mode)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="197" />
        <source>不要记住的内容…</source>
        <translation>Things not to remember…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="201" />
        <source>选择…</source>
        <translation>Choose…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="203" />
        <source>打开数据文件夹</source>
        <translation>Open data folder</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="208" />
        <source>回忆方式</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="209" />
        <source>回忆超时</source>
        <translation>Recall timeout</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="210" />
        <source>存储方式</source>
        <translation>Storage</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="212" />
        <source>回收站保留</source>
        <translation>Keep deleted memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="213" />
        <source>记忆写入</source>
        <translation>Memory writing</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="215" />
        <source>换到还没有记忆的文件夹时，现在的记忆和聊天记录会复制过去（原来的文件夹保留不动）；换到已有记忆的文件夹时，使用那里的记忆。</source>
        <translation>A folder that holds no memories yet gets a copy of the current memories and chats (the current folder is left as it is); a folder that holds memories already is used as it is.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="219" />
        <source>数据文件夹</source>
        <translation>Data folder</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="228" />
        <source>跟随系统</source>
        <translation>Follow the system</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="228" />
        <source>浅色</source>
        <translation>Light</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="228" />
        <source>深色</source>
        <translation>Dark</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="233" />
        <source>主题</source>
        <translation>Theme</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="234" />
        <source>语言</source>
        <translation>Language</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="317" />
        <source>无法保存设置：</source>
        <translation>Cannot save the settings: </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="336" />
        <source>正在连接…</source>
        <translation>Connecting…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="361" />
        <source>连接成功：模型“%1”可以使用（响应 %2 毫秒）。</source>
        <translation>Connected: the model “%1” answers (%2 ms).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="364" />
        <source>（它没有出现在服务的模型列表里，但能正常回答。）</source>
        <translation> (It is not in the server's model list, but it answers.)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="367" />
        <source>服务商已公布：这个模型将于 %1 停用，之后就不能再用了。请在那之前换一个模型。</source>
        <translation>The provider has announced that this model shuts down on %1; after that it will not answer. Choose another model before then.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="371" />
        <source>接口地址应以 http:// 或 https:// 开头。</source>
        <translation>The base URL must start with http:// or https://.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="372" />
        <source>请填写接口地址或 API Key。</source>
        <translation>Please enter a base URL or an API key.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="376" />
        <source>（HTTP %1）</source>
        <translation> (HTTP %1)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="380" />
        <source>服务要求约 %1 分钟后再试。</source>
        <translation> The server asks to try again in about %1 min.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="381" />
        <source>服务要求约 %1 秒后再试。</source>
        <translation> The server asks to try again in about %1 s.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="383" />
        <source>（服务说的原因见提示）</source>
        <translation> (The server's own words are in the tooltip.)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="385" />
        <source>、</source>
        <translation>, </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="387" />
        <source>%1等</source>
        <translation>%1, …</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="388" />
        <source>服务上可用的模型：%1</source>
        <translation>Models on the server: %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="394" />
        <source>模型服务上找不到模型“%1”。请检查模型名称的拼写，或先在服务上下载/启用它。</source>
        <translation>The model server does not know the model “%1”. Check the name, or pull/enable it on the server.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="396" />
        <source>模型服务上找不到这个模型。请检查模型名称的拼写，或先在服务上下载/启用它。</source>
        <translation>The model server does not know this model. Check the model name, or pull/enable it on the server.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="398" />
        <source>还没有配置模型。请在“设置”里填写接口地址、模型名称和 API Key（本地模型可不填 Key）。</source>
        <translation>No model is configured. Open Settings and enter the base URL, model name and API key (local servers need no key).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="400" />
        <source>连不上模型服务。请检查接口地址是否正确、网络是否通畅，本地模型服务是否已经启动。</source>
        <translation>Cannot reach the model server. Check the base URL and your network, and that a local server is running.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="402" />
        <source>模型服务拒绝了 API Key（认证失败）。请在“设置”里检查或重新填写 API Key。</source>
        <translation>The model server rejected the API key (authentication failed). Check or re-enter it in Settings.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="404" />
        <source>请求太频繁，或账户额度/余额不足。请稍后再试，或检查账户额度。</source>
        <translation>Too many requests, or the account is out of quota or credit. Try again later or check your account.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="406" />
        <source>模型服务内部出错了，请稍后再试。</source>
        <translation>The model server had an internal error. Please try again later.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="408" />
        <source>模型服务响应超时。可以稍后再试，或在“设置”里调大超时时间。</source>
        <translation>The model server took too long to answer. Try again later or raise the timeout in Settings.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="410" />
        <source>模型服务拒绝了这次请求。请检查 API 密钥是否正确、这个密钥能否使用该模型，以及服务端的设置。</source>
        <translation>The model server refused the request. Check that the API key is right, that it may use this model, and the server's own setup.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="412" />
        <source>模型返回了空回复（没有任何文字）。可以重试；如果经常这样，可能是模型的输出被服务端过滤或截断了，或者这个模型不适合对话。</source>
        <translation>The model sent back an empty reply (no text at all). Try again; if it keeps happening, the server may be filtering or cutting off its output, or the model is not made for chat.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="414" />
        <source>模型反复调用工具，一直没有给出回答，已中止。换个说法再试一次；如果经常这样，可以换一个模型。</source>
        <translation>The model kept calling tools without answering and was stopped. Try rephrasing; if it keeps happening, try another model.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="415" />
        <source>模型服务返回了无法理解的内容。请确认接口地址是 OpenAI 兼容的（通常以 /v1 结尾）。</source>
        <translation>The model server sent a reply that could not be understood. Check that the base URL is OpenAI-compatible (it usually ends in /v1).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="420" />
        <source>它也会调用工具（记忆写入靠工具调用）。</source>
        <translation> It calls tools too (memory writing works through tool calls).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="422" />
        <source>但它没有调用工具，而是用文字回答：Sonetto 写记忆要靠工具调用（function calling），用这个模型时记忆不会被写入。请换一个支持工具调用的模型（llama.cpp 的服务需要加 --jinja 启动）。</source>
        <translation> But it answered in words instead of calling a tool: Sonetto writes memories through tool calls (function calling), so with this model nothing would be remembered. Choose a model that supports tool calling (start a llama.cpp server with --jinja).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="424" />
        <source>但服务拒绝了带工具的请求：这个模型或服务不支持工具调用（function calling），用它时记忆不会被写入。</source>
        <translation> But the server refused a request with tools: this model or server does not support tool calling (function calling), so with it nothing would be remembered.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="426" />
        <source>（未能确认它是否支持工具调用。）</source>
        <translation> (Whether it supports tool calling could not be checked.)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="434" />
        <source>yyyy年M月d日</source>
        <translation>d MMMM yyyy</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/dialog.py" line="478" />
        <source>选择数据文件夹</source>
        <translation>Choose the data folder</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/fields.py" line="58" />
        <source>由环境变量 %1 设置，在这里不能修改。</source>
        <extracomment>The environment variables that can set a field (the first one set wins, as in ``Settings.with_env``).</extracomment>
        <translation>Set by the environment variable %1; it cannot be changed here.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/fields.py" line="76" />
        <location filename="../../sonetto_desktop/ui/settings/fields.py" line="86" />
        <source>显示</source>
        <translation>Show</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/fields.py" line="77" />
        <location filename="../../sonetto_desktop/ui/settings/fields.py" line="87" />
        <source>显示密钥</source>
        <translation>Show the key</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/fields.py" line="78" />
        <source>显示或隐藏密钥</source>
        <translation>Show or hide the key</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/fields.py" line="83" />
        <source>隐藏</source>
        <translation>Hide</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/fields.py" line="84" />
        <source>隐藏密钥</source>
        <translation>Hide the key</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/fields.py" line="102" />
        <source> 天</source>
        <translation> days</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/settings/fields.py" line="103" />
        <source>一直保留</source>
        <translation>For ever</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="27" />
        <source>发送消息</source>
        <translation>Send the message</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="28" />
        <source>在消息里换行</source>
        <translation>New line in the message</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="29" />
        <source>在输入框、对话列表、记忆墙和按钮之间移动</source>
        <translation>Move between the input, the chat list, the memory wall and buttons</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="30" />
        <source>关闭对话框（有未保存的修改时会先询问）</source>
        <translation>Close a dialog (asks first when there are unsaved changes)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="31" />
        <source>保存编辑或合并记忆的对话框</source>
        <translation>Save in the memory edit or merge dialog</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="32" />
        <source>删除选中的记忆卡片（可撤销）</source>
        <translation>Delete the selected memory cards (can be undone)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="33" />
        <source>在记忆墙的卡片之间移动（到一个主题的边上就进到相邻的主题）</source>
        <translation>Move between the memory wall's cards (at a theme's edge, on to the next theme)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="34" />
        <source>编辑记忆墙上当前的卡片</source>
        <translation>Edit the memory wall's current card</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="35" />
        <source>记忆墙上当前卡片的菜单（历史、合并、锁定、置顶…）</source>
        <translation>The current memory card's menu (history, merge, lock, pin…)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="76" />
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="83" />
        <source>键盘快捷键</source>
        <extracomment>The most key combinations listed for one action (Windows binds 重做 to three: Ctrl+Y, Alt+Shift+Backspace and Ctrl+Shift+Z; the column took half the dialog and cut the descriptions beside it).</extracomment>
        <translation>Keyboard shortcuts</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="84" />
        <source>按键</source>
        <translation>Keys</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="84" />
        <source>作用</source>
        <translation>Action</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/shortcuts.py" line="98" />
        <source>关闭</source>
        <translation>Close</translation>
    </message>
</context>
<context>
    <name>SonettoApp</name>
    <message>
        <location filename="../../sonetto_desktop/ui/shell.py" line="195" />
        <source>上次退出时复制到数据文件夹 {0} 还没有完成，复制已停止，没有换过去。仍在使用原来的数据文件夹 {1}，记忆都在；要换过去，请在设置里再选一次。</source>
        <translation>Sonetto quit last time before the copy into the data folder {0} was finished: the copy was stopped and the data folder was not changed. Still using the previous data folder {1}, with all your memories; to change it, choose the folder again in the settings.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/shell.py" line="197" />
        <source>上次没有换到数据文件夹 {0}（复制已取消或失败），仍在使用原来的数据文件夹 {1}。</source>
        <translation>The data folder was not changed to {0} last time (the copy was cancelled or failed); still using the previous data folder {1}.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/shell.py" line="202" />
        <source>设置文件已损坏，所有设置暂时恢复为默认值；原来的文件保存为 {0}，可以从中找回。</source>
        <translation>The settings file was damaged: every setting is back at its default for now. The old file was kept as {0}; your settings can be found there.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/shell.py" line="415" />
        <source>对话功能启动失败：%1。记忆墙仍可使用；请检查数据目录后重启。</source>
        <translation>Chat could not start: %1. The memory wall still works; check the data folder, then restart.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/shell.py" line="663" />
        <source>无法保存设置：</source>
        <translation>Could not save the settings: </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/shell.py" line="695" />
        <source>没有切换到 PostgreSQL：本机的记忆没能搬到记忆服务器 {0} 上（{1}）。仍在使用本机的记忆库，记忆都还在。</source>
        <translation>Did not switch to PostgreSQL: the memories on this computer could not be moved to the memory server {0} ({1}). Still using this computer's memory store; every memory is still there.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/shell.py" line="699" />
        <source>无法切换存储方式：{0}。仍在使用原来的记忆库。</source>
        <translation>Cannot switch the storage: {0}. Still using the previous memory store.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="54" />
        <source>被替换的那几轮写下的记忆后来又被改过，这些没有撤销（{0}）。可以在记忆墙上处理。</source>
        <translation>Memories written by the replaced turns were changed since; those were not taken back ({0}). You can handle them on the wall.</translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="60" />
        <source>消息改过了：已撤销被替换那几轮记下的 %Ln 处记忆变化</source>
        <translation><numerusform>Message edited: took back 1 memory change of the replaced turns</numerusform><numerusform>Message edited: took back %Ln memory changes of the replaced turns</numerusform></translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="70" />
        <source>已导出到 {0}</source>
        <translation>Exported to {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="71" />
        <source>打开文件夹</source>
        <translation>Open folder</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="83" />
        <source>这条记忆已经不在了（合并进了别的记忆，或已永久删除）。</source>
        <translation>This memory is gone (merged into another one, or deleted for good).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="89" />
        <source>这条记忆已被忘掉，在回收站里：{0}</source>
        <translation>This memory was forgotten and is in the trash: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="91" />
        <source>恢复</source>
        <translation>Restore</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="112" />
        <source>那段对话已经不在了（删除了，或是临时对话）。</source>
        <translation>That chat is gone (deleted, or a temporary chat).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="123" />
        <source>那条消息后来被编辑替换了，已不在这段对话里。原话：“{0}”</source>
        <translation>That message was later replaced by an edit and is no longer in this chat. It said: “{0}”</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="124" />
        <source>那条消息后来被编辑替换了，已不在这段对话里。</source>
        <translation>That message was later replaced by an edit and is no longer in this chat.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="142" />
        <source>以后不会再记住这件事；但这轮写下的记忆后来又被改过，没有撤销（{0}）。可以在记忆墙上处理。</source>
        <translation>This will not be remembered from now on; but the memories this turn wrote were changed since and were not undone ({0}). You can handle them on the memory wall.</translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="148" />
        <source>已撤销这轮的 %Ln 处记忆变化，以后也不会记住这件事。</source>
        <translation><numerusform>Undid this turn's memory change; this will not be remembered from now on.</numerusform><numerusform>Undid this turn's %Ln memory changes; this will not be remembered from now on.</numerusform></translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="152" />
        <source>好的，这件事不会被记住。</source>
        <translation>OK, this will not be remembered.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="169" />
        <source>已忘掉：{0}</source>
        <translation>Forgotten: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="63" />
        <location filename="../../sonetto_desktop/ui/chat/actions.py" line="171" />
        <source>撤销</source>
        <translation>Undo</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/shell.py" line="700" />
        <source>无法使用新的数据文件夹 {0}：{1}。仍在使用原来的记忆库。</source>
        <translation>Cannot use the new data folder {0}: {1}. Still using the previous memory store.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/store_problem.py" line="20" />
        <source>记忆库文件无法读取，为了不丢失任何内容，Sonetto 不会写入它。</source>
        <translation>The memory store cannot be read. So that nothing is lost, Sonetto will not write to it.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/store_problem.py" line="21" />
        <source>记忆库有问题</source>
        <translation>Problem with the memory store</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/store_problem.py" line="23" />
        <source>可以在数据文件夹里用备份（.bak）恢复，然后重新启动。</source>
        <translation>You can restore it from the backup (.bak) in the data folder, then restart.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/store_problem.py" line="25" />
        <source>打开数据文件夹</source>
        <translation>Open data folder</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/language_switch.py" line="62" />
        <source>这条回复结束后，界面会切换语言。</source>
        <translation>The interface switches language when this reply ends.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/language_switch.py" line="134" />
        <source>界面语言已切换。</source>
        <translation>Interface language changed.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/language_switch.py" line="158" />
        <source>关掉正在编辑的对话框后，界面会切换语言。</source>
        <translation>The interface switches language once you close the dialog you are editing in.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/language_switch.py" line="235" />
        <source>切换语言后没能重新显示这段对话：{0}</source>
        <translation>After the language switch, this chat could not be shown again: {0}</translation>
    </message>
</context>
<context>
    <name>SqliteOffer</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/sqlite_offer.py" line="59" />
        <source>记忆已有 {0} 条。换成 SQLite 记忆库会启动更快、占用更少内存；所有记忆和历史都会原样迁移，随时可以在设置里换回。</source>
        <translation>You have {0} memories. A SQLite memory store starts faster and uses less memory; every memory and its history move over as they are, and you can switch back in Settings at any time.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/sqlite_offer.py" line="62" />
        <source>换成 SQLite</source>
        <translation>Switch to SQLite</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/sqlite_offer.py" line="81" />
        <source>无法保存设置：{0}</source>
        <translation>Could not save the settings: {0}</translation>
    </message>
</context>
<context>
    <name>StartProblems</name>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/start_problems.py" line="26" />
        <source>无法打开记忆库</source>
        <translation>Can't open the memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/start_problems.py" line="26" />
        <source>Sonetto 无法使用这个数据文件夹，没有读写任何内容。</source>
        <translation>Sonetto can't use this data folder; nothing was read or written.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/start_problems.py" line="30" />
        <source>选择其他文件夹…</source>
        <translation>Choose another folder…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/start_problems.py" line="31" />
        <source>退出</source>
        <translation>Quit</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/start_problems.py" line="38" />
        <source>选择数据文件夹</source>
        <translation>Choose the data folder</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/start_problems.py" line="51" />
        <source>切换存储方式没有完成</source>
        <translation>Switching the storage did not finish</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/start_problems.py" line="52" />
        <source>你的记忆都还在：Sonetto 打开的是仍然完整的那个记忆库。</source>
        <translation>Your memories are all there: Sonetto opened the store that is still complete.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/start_problems.py" line="54" />
        <source>打开数据文件夹</source>
        <translation>Open data folder</translation>
    </message>
</context>
<context>
    <name>StatusIndicator</name>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="225" />
        <source>向量模型已更换：等你确认</source>
        <translation>Embeddings model changed: waiting for you</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="226" />
        <source>回忆改用了向量模型 %1，要为 %2 条记忆重新计算向量；确认之前回忆只按字面找。</source>
        <translation>Recall now uses the embeddings model %1: the vectors of %2 memories must be computed again; until you confirm, recall goes by the words only.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="239" />
        <source>向量服务连不上：暂时只按字面回忆</source>
        <translation>Embeddings service unreachable: recall by words for now</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="240" />
        <source>回忆时连不上向量模型 %1：这段时间回忆只按字面找记忆，稍后自动再试，连上后照常按意思找。</source>
        <translation>Recall cannot reach the embeddings model %1: for now recall finds memories by their words only; it tries again by itself, and once it answers, recall finds them by meaning again.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="235" />
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="242" />
        <source>原因：%1</source>
        <translation>Reason: %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="232" />
        <source>内置向量模型正忙：暂时只按字面回忆</source>
        <translation>The built-in embeddings model is busy: recall by words for now</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="233" />
        <source>内置向量模型 %1 在本程序里运行，这次正忙，没能及时算出消息的向量：这段时间回忆只按字面找记忆，稍后自动再试，之后照常按意思找。</source>
        <translation>The built-in embeddings model %1 runs inside the app and was busy: it did not work out the message's vector in time, so recall goes by the words for now; it tries again shortly and then finds memories by meaning as usual.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="245" />
        <source>向量 %1/%2</source>
        <translation>Vectors %1/%2</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="247" />
        <source>%1 出错</source>
        <translation>%1 failed</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="249" />
        <source>%1（稍后继续）</source>
        <translation>%1 (continuing later)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="251" />
        <source>向量模型 %1 在后台为每条记忆计算向量，算好的记忆回忆时也能按意思找到。</source>
        <translation>The embeddings model %1 computes a vector for every memory in the background; memories with one are also found by meaning when Sonetto recalls.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="253" />
        <source>内置向量模型在这台电脑上运行不了：%1</source>
        <translation>The built-in embeddings model does not run on this computer: %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="268" />
        <source>向量服务拒绝了请求（%1）：请检查 API 密钥。</source>
        <translation>The embeddings service refused the request (%1): check the API key.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="270" />
        <source>向量服务找不到这个模型（%1）：请检查服务地址和模型名称。</source>
        <translation>The embeddings service does not know this model (%1): check the base URL and the model name.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="272" />
        <source>向量服务限流了（%1）：稍后自动再试。</source>
        <translation>The embeddings service is rate-limiting (%1): it is tried again by itself later.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="274" />
        <source>向量服务拒绝了请求（%1）：这个模型可能不是向量模型，或不支持所填的维度。</source>
        <translation>The embeddings service refused the request (%1): the model may not be an embeddings model, or may not accept the dimensions given.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="276" />
        <source>向量服务出错了（%1）。</source>
        <translation>The embeddings service failed (%1).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="278" />
        <source>连不上向量服务 %1。</source>
        <translation>The embeddings service %1 cannot be reached.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="280" />
        <source>向量服务 %1 在 %2 秒内没有回应。</source>
        <translation>The embeddings service %1 gave no answer within %2 s.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="283" />
        <source>向量模型每次给同一段文字算出的向量都不一样：已算好的向量先留着，等它稳定下来。</source>
        <translation>The embeddings model answers the same text differently each time: the vectors made are kept until it answers alike.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="285" />
        <source>向量服务的回答不像向量模型给的：请检查模型名称。</source>
        <translation>The embeddings service's answer is not an embeddings model's: check the model name.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="287" />
        <source>内置向量模型在 %1 秒内没有算完（正忙）。</source>
        <translation>The built-in embeddings model did not finish within %1 s (busy).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="289" />
        <source>内置向量模型出错了（详情在日志里）。</source>
        <translation>The built-in embeddings model failed (the details are in the log).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="290" />
        <source>向量计算出错了（详情在日志里）。</source>
        <translation>Computing the vectors failed (the details are in the log).</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="305" />
        <source>第一次打开导入的记忆时要建立回忆索引；建好前回忆只用已建好的部分</source>
        <translation>Imported memories are indexed for recall the first time they are opened; until it is done, recall uses the part already indexed</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="306" />
        <source>正在建立回忆索引… %1 / %2</source>
        <translation>Building the recall index… %1 / %2</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="309" />
        <source>记忆写入未启动</source>
        <translation>Memory writer not started</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="315" />
        <source>记忆写入已暂停 (%1)</source>
        <translation>Memory writing paused (%1)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="317" />
        <source>整理记忆中 (%1)</source>
        <translation>Organising memories (%1)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="323" />
        <source>记忆写入出错：%1</source>
        <translation>Memory writing failed: %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="325" />
        <source>记忆已是最新</source>
        <translation>Memories are up to date</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="327" />
        <source>审核模式：Sonetto 想做的记忆变化会先等你确认</source>
        <translation>Review mode: changes Sonetto wants to make wait for you</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="330" />
        <source>聊天记忆已是最新</source>
        <translation>Chat memories are up to date</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="336" />
        <source>继续记忆写入</source>
        <translation>Resume memory writing</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="336" />
        <source>暂停记忆写入</source>
        <translation>Pause memory writing</translation>
    </message>
</context>
<context>
    <name>StoreBanner</name>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/store_banner.py" line="44" />
        <source>记忆服务器暂时连不上：现在显示的是本机副本（{0}），只能查看、不能修改。聊天照常，新的记忆会在服务器恢复后自动写入。</source>
        <translation>The memory server can't be reached: showing this computer's copy ({0}), read-only. Chatting goes on; new memories are written once the server is back.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/store_banner.py" line="47" />
        <source>记忆服务器暂时连不上，本机还没有副本：记忆暂时为空、只能查看。聊天照常，新的记忆会在服务器恢复后自动写入。</source>
        <translation>The memory server can't be reached and this computer has no copy yet: no memories to show for now. Chatting goes on; new memories are written once the server is back.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/store_banner.py" line="56" />
        <source>记忆服务器拒绝了这台电脑的连接：{0}。请在 设置 → 多设备 里改正。现在显示的是本机副本（{1}），只能查看、不能修改；聊天照常，新的记忆先留在这台电脑上。</source>
        <translation>The memory server refuses this computer: {0}. Correct it in Settings → Devices. You are seeing this computer's copy ({1}): read-only. Chatting goes on; new memories wait on this computer.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/store_banner.py" line="59" />
        <source>记忆服务器拒绝了这台电脑的连接：{0}。请在 设置 → 多设备 里改正。本机还没有副本：记忆暂时为空、只能查看；聊天照常，新的记忆先留在这台电脑上。</source>
        <translation>The memory server refuses this computer: {0}. Correct it in Settings → Devices. This computer has no copy yet: no memories to show for now. Chatting goes on; new memories wait on this computer.</translation>
    </message>
</context>
<context>
    <name>StoreNotices</name>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="24" />
        <source>{0} 不见了（被删除或移走）：记忆都还在，已按现在的内容重新写出这个文件</source>
        <translation>{0} disappeared (deleted or moved away): no memory is lost, and the file was written again from them</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="26" />
        <source>{0} 被换成了指向别处的链接：没有读取链接的内容，已按现在的记忆重新写出这个文件</source>
        <translation>{0} was replaced by a link to another file: the link was not followed, and the file was written again from your memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="28" />
        <source>{0} 现在读不了：{1}。记忆照常显示，但修改会被拒绝，文件不会被覆盖；修好后自动恢复</source>
        <translation>{0} cannot be read now: {1}. Your memories still show, but changes are refused and the file is never written over; it all goes on once the file reads again</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="31" />
        <source>{0} 又能读取了，记忆可以照常修改</source>
        <translation>{0} reads again: memories can be changed as usual</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="33" />
        <source>磁盘已满</source>
        <translation>the disk is full</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="34" />
        <source>所在文件夹是只读的</source>
        <translation>its folder is read-only</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="35" />
        <source>没有写入权限</source>
        <translation>there is no permission to write it</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="36" />
        <source>{0} 现在保存不了（{1}）：新的记忆和修改都已安全记在更改日志 {2} 里，不会丢失；{0} 暂时还是旧的内容，能写入后会自动保存</source>
        <translation>{0} cannot be saved now ({1}): new memories and changes are safe in the change log {2} and nothing is lost; {0} keeps its older content for now and is saved by itself once it can be written</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="39" />
        <source>{0} 又能保存了：这段时间的记忆和修改都已写入</source>
        <translation>{0} saves again: the memories and changes made meanwhile are in it</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="42" />
        <source>{0} 不见了：已从备份和更改日志完整恢复</source>
        <translation>{0} was missing: restored in full from its backup and change log</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="43" />
        <source>{0} 不见了：已从较早的备份恢复，最近的一些修改可能不在其中</source>
        <translation>{0} was missing: restored from an older backup, so some recent changes may be missing</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="45" />
        <source>{0} 是从较早的副本保存的：Sonetto 之后写的 {1} 处修改已保留</source>
        <translation>{0} was saved from an older copy: the {1} changes Sonetto made since were kept</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="50" />
        <source>在 {0} 里删除的「{1}」已移到回收站，可以恢复</source>
        <translation>“{1}”, deleted in {0}, is in the trash and can be restored</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="51" />
        <source>在 {0} 里删除的 {1} 条记忆已移到回收站，可以恢复</source>
        <translation>The {1} memories deleted in {0} are in the trash and can be restored</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="56" />
        <source>你在 {0} 里改的「{1}」和另一处修改冲突：用了你的版本，另一个版本另存为「{2}」</source>
        <translation>Your edit of “{1}” in {0} conflicts with another change: yours is kept, and the other is kept as “{2}”</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="58" />
        <source>你在 {0} 里改的「{1}」和另一处修改冲突：用了你的版本</source>
        <translation>Your edit of “{1}” in {0} conflicts with another change: yours is kept</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/store_notices.py" line="70" />
        <source>另一个程序（另一个 Sonetto 或 sonetto mcp）正占着 {0}：正在等它写完，最多等 1 分钟</source>
        <translation>Another program (another Sonetto or sonetto mcp) is holding {0}: waiting for it to finish, for a minute at most</translation>
    </message>
</context>
<context>
    <name>ThemeSection</name>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/theme_section.py" line="178" />
        <source>展开</source>
        <translation>Expand</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/theme_section.py" line="178" />
        <source>折叠</source>
        <translation>Collapse</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/theme_section.py" line="179" />
        <source>展开「{0}」</source>
        <translation>Expand “{0}”</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/theme_section.py" line="180" />
        <source>折叠「{0}」</source>
        <translation>Collapse “{0}”</translation>
    </message>
</context>
<context>
    <name>Toast</name>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/toasts.py" line="167" />
        <source>关闭</source>
        <translation>Close</translation>
    </message>
</context>
<context>
    <name>TransferActions</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/transfer_actions.py" line="68" />
        <source>导出记忆</source>
        <translation>Export memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/transfer_actions.py" line="90" />
        <source>无法导出：{0}</source>
        <translation>Cannot export: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/transfer_actions.py" line="177" />
        <source>{0}。{1}</source>
        <translation>{0}. {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/transfer_actions.py" line="128" />
        <source>导入记忆</source>
        <translation>Import memories</translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/dialogs/transfer_actions.py" line="103" />
        <source>已导出 %Ln 条记忆到 {0}；置顶标记在旁边的 {1} 里，搬到别处时请一起带上</source>
        <translation><numerusform>Exported 1 memory to {0}; the pins are in {1} beside it: take it along when you move the memory</numerusform><numerusform>Exported %Ln memories to {0}; the pins are in {1} beside it: take it along when you move the memories</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/dialogs/transfer_actions.py" line="106" />
        <source>已导出 %Ln 条记忆到 {0}</source>
        <translation><numerusform>Exported 1 memory to {0}</numerusform><numerusform>Exported %Ln memories to {0}</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/dialogs/transfer_actions.py" line="108" />
        <source>；回收站里的 %Ln 条在旁边的 {0} 里，导入时会回到回收站</source>
        <translation><numerusform>; the one in the trash is in {0} beside it (an import puts it back in the trash)</numerusform><numerusform>; the %Ln in the trash are in {0} beside it (an import puts them back in the trash)</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/dialogs/transfer_actions.py" line="110" />
        <source>；回收站里的 %Ln 条也在里面，导入时会回到回收站</source>
        <translation><numerusform>, and the one in the trash (an import puts it back in the trash)</numerusform><numerusform>, and the %Ln in the trash (an import puts them back in the trash)</numerusform></translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/transfer_actions.py" line="130" />
        <source>记忆导出文件 (*.yaml *.yml *.json *.md)</source>
        <translation>Memory exports (*.yaml *.yml *.json *.md)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/transfer_actions.py" line="143" />
        <source>无法导入 {0}：{1}</source>
        <translation>Cannot import {0}: {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/transfer_actions.py" line="168" />
        <source>已导入 {0} 条记忆，跳过 {1} 条重复的</source>
        <translation>Imported {0} memories, skipped {1} duplicates</translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/dialogs/transfer_actions.py" line="171" />
        <source>；%Ln 条删除了的记忆放回了回收站（这次导入没有新增记忆，无从撤销；不需要的可以在回收站里永久删除）</source>
        <translation><numerusform>; 1 deleted memory put back in the trash (no memory added, so nothing to undo; delete it for good in the trash if you do not want it)</numerusform><numerusform>; %Ln deleted memories put back in the trash (no memory added, so nothing to undo; delete them for good in the trash if you do not want them)</numerusform></translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/dialogs/transfer_actions.py" line="174" />
        <source>；%Ln 条删除了的记忆放回了回收站（撤销这次导入时它们仍留在回收站）</source>
        <translation><numerusform>; 1 deleted memory put back in the trash (undoing this import leaves it there)</numerusform><numerusform>; %Ln deleted memories put back in the trash (undoing this import leaves them there)</numerusform></translation>
    </message>
</context>
<context>
    <name>TrashDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="70" />
        <source>回收站</source>
        <translation>Trash</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="76" />
        <source>加载中…</source>
        <translation>Loading…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="84" />
        <source>恢复</source>
        <translation>Restore</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="85" />
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="211" />
        <source>永久删除</source>
        <translation>Delete for good</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="86" />
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="199" />
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="201" />
        <source>清空回收站</source>
        <translation>Empty the trash</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="129" />
        <source>回收站是空的。</source>
        <translation>The trash is empty.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="129" />
        <source>{0} 条已删除的记忆</source>
        <translation>Deleted memories: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="200" />
        <source>永久删除回收站里的全部 {0} 条记忆？此操作无法撤销。</source>
        <translation>Delete every memory in the trash for good ({0} in all)? This cannot be undone.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="208" />
        <source>永久删除「{0}」？此操作无法撤销。</source>
        <translation>Delete “{0}” for good? This cannot be undone.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="210" />
        <source>永久删除选中的 {0} 条记忆？此操作无法撤销。</source>
        <translation>Delete the {0} selected memories for good? This cannot be undone.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="223" />
        <source>并入「{0}」</source>
        <translation>merged into “{0}”</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="225" />
        <source>并入另一条记忆（已不在）</source>
        <translation>merged into another memory (no longer there)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="233" />
        <source>回收站里的记忆会一直保留，直到你永久删除。</source>
        <translation>Deleted memories stay here until you delete them for good.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/trash.py" line="234" />
        <source>删除超过 {0} 天的记忆会在启动时被永久清除。</source>
        <translation>Memories deleted more than {0} days ago are removed for good at start-up.</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <location filename="../../sonetto_desktop/ui/tray/tray.py" line="29" />
        <source>打开主窗口</source>
        <translation>Open main window</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/tray/tray.py" line="31" />
        <source>快速对话</source>
        <translation>Quick chat</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/tray/tray.py" line="36" />
        <source>退出</source>
        <translation>Quit</translation>
    </message>
</context>
<context>
    <name>TurnSummary</name>
    <message>
        <location filename="../../sonetto_desktop/presentation/turn_summary.py" line="60" />
        <source>整理了 {0} 条记忆</source>
        <translation>Tidied {0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/turn_summary.py" line="65" />
        <source>记住了 {0} 条</source>
        <translation>remembered {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/turn_summary.py" line="67" />
        <source>更新了 {0} 条</source>
        <translation>updated {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/turn_summary.py" line="69" />
        <source>合并了 {0} 处</source>
        <translation>merged {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/turn_summary.py" line="71" />
        <source>删除了 {0} 条</source>
        <translation>deleted {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/turn_summary.py" line="72" />
        <source>，</source>
        <translation>, </translation>
    </message>
</context>
<context>
    <name>UndoRestDialog</name>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/undo_rest.py" line="44" />
        <source>保留的卡片</source>
        <translation>Cards kept</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/undo_rest.py" line="54" />
        <source>撤销之后也可以再撤销它，把这些改动找回来。</source>
        <translation>The undo can itself be undone later to bring these changes back.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/undo_rest.py" line="58" />
        <source>撤销其余的改动</source>
        <translation>Undo the rest</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/dialogs/undo_rest.py" line="60" />
        <source>取消</source>
        <translation>Cancel</translation>
    </message>
</context>
<context>
    <name>VectorNotices</name>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="92" />
        <source>这台电脑（%1）没有内置的向量模型：回忆改用你填好的向量服务 %2 按意思找记忆。</source>
        <extracomment>How long the fallback toast stays (it is said once: long enough to read).</extracomment>
        <translation>This computer (%1) has no built-in embeddings model: recall finds memories by meaning with the embeddings service you filled in, %2.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="94" />
        <source>这台电脑（%1）没有内置的向量模型：回忆只按字面找记忆。在 设置 ▸ 回忆 填一个向量服务（比如 Ollama 的 bge-m3），回忆就能按意思找。</source>
        <translation>This computer (%1) has no built-in embeddings model: recall finds memories by their words only. Fill in an embeddings service in Settings ▸ Recall (for example Ollama's bge-m3) and recall finds them by meaning.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="99" />
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="113" />
        <source>设置…</source>
        <translation>Settings…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="109" />
        <source>内置的向量模型在这台电脑上运行不了：回忆只按字面找记忆。可以在 设置 ▸ 回忆 改用向量服务（比如 Ollama 的 bge-m3）；原因见状态栏的“向量”提示。</source>
        <translation>The built-in embeddings model does not run on this computer: recall finds memories by their words only. You can use an embeddings service instead in Settings ▸ Recall (for example Ollama's bge-m3); the reason is in the tip of the status bar's “Vectors”.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="127" />
        <source>内置向量模型 %1 正忙，没能及时回应：回忆暂时只按字面找记忆，稍后自动恢复按意思找。</source>
        <translation>The built-in embeddings model %1 was busy and did not answer in time: recall goes by the words for now and finds memories by meaning again by itself shortly.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="130" />
        <source>向量服务 %1 连不上：回忆暂时只按字面找记忆，连上后自动恢复按意思找。</source>
        <translation>The embeddings service %1 cannot be reached: recall finds memories by their words only for now, and by meaning again once it answers.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="163" />
        <source>更换向量模型</source>
        <translation>Change the embeddings model</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="166" />
        <source>开始计算</source>
        <translation>Start computing</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="167" />
        <source>以后再说</source>
        <translation>Not now</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="189" />
        <source>记忆库里的向量是 %1 算的。</source>
        <translation>The vectors in the memory store were computed by %1.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="190" />
        <source>记忆库里的向量是之前的向量模型算的。</source>
        <translation>The vectors in the memory store were computed by the previous embeddings model.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="191" />
        <source>回忆现在用向量模型 %1。</source>
        <translation>Recall now uses the embeddings model %1.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="192" />
        <source>要为 %1 条记忆重新计算向量吗？</source>
        <translation>Compute the vectors of %1 memories again?</translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="195" />
        <source>在这台电脑上后台计算，不花钱，大约 %Ln 分钟。</source>
        <translation><numerusform>Computed on this computer in the background, free, about 1 minute.</numerusform><numerusform>Computed on this computer in the background, free, about %Ln minutes.</numerusform></translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="197" />
        <source>由本机的向量服务计算，不花钱。</source>
        <translation>Computed by the local embeddings service, free.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="199" />
        <source>会把记忆的文字发给向量服务，约 %1 tokens</source>
        <translation>Sends the memories' text to the embeddings service, about %1 tokens</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="202" />
        <source>，按 %1 的标价约 %2</source>
        <translation>, about %2 at %1's list price</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="205" />
        <source>，这个服务目前免费</source>
        <translation>, this service is free for now</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="206" />
        <source>。</source>
        <translation>.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/vector_notices.py" line="207" />
        <source>算好之前，回忆只按字面找记忆；新的向量算完后，旧的才会删除。</source>
        <translation>Until they are computed, recall finds memories by their words only; the old vectors are deleted only once the new ones are done.</translation>
    </message>
</context>
<context>
    <name>WallBulk</name>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="42" />
        <source>已锁定 {0} 条</source>
        <translation>{0} locked</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="44" />
        <source>已不在 {0} 条</source>
        <translation>{0} gone</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="45" />
        <source>（跳过 {0} 条：{1}）</source>
        <translation> ({0} skipped: {1})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="46" />
        <source>，</source>
        <translation>, </translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="74" />
        <source>已把 {0} 条移到「{1}」</source>
        <translation>Moved {0} to “{1}”</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="80" />
        <source>已删除 {0} 条记忆</source>
        <translation>Deleted {0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="86" />
        <source>已锁定 {0} 条：Sonetto 和其他应用不能再改动它们</source>
        <translation>Locked {0}: Sonetto and other apps can no longer change them</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="87" />
        <source>已解锁 {0} 条</source>
        <translation>Unlocked {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="95" />
        <source>已置顶 {0} 条</source>
        <translation>Pinned {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="96" />
        <source>已取消置顶 {0} 条</source>
        <translation>Unpinned {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="103" />
        <source>删除 Sonetto 今天写的记忆</source>
        <translation>Delete what Sonetto wrote today</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="104" />
        <source>把 Sonetto 今天新写下的记忆都移到回收站？之后可以在提示里撤销，或从回收站恢复。</source>
        <translation>Move every memory Sonetto wrote today to the trash? You can undo it from the notification, or restore them from the trash.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="107" />
        <source>删除</source>
        <translation>Delete</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="109" />
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="166" />
        <source>取消</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="118" />
        <source>已删除 Sonetto 今天写的 {0} 条记忆</source>
        <translation>Deleted {0} memories Sonetto wrote today</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="119" />
        <source>Sonetto 今天还没有写下新的记忆。</source>
        <translation>Sonetto has not written any new memory today.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="126" />
        <source>重命名主题</source>
        <translation>Rename theme</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="127" />
        <source>「{0}」的新名字：</source>
        <translation>New name for “{0}”:</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="142" />
        <source>已把「{1}」并入「{2}」（{0} 条）</source>
        <translation>Merged “{1}” into “{2}” ({0})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="143" />
        <source>已把「{1}」改名为「{2}」（{0} 条）</source>
        <translation>Renamed “{1}” to “{2}” ({0})</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="159" />
        <source>合并主题</source>
        <translation>Merge themes</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="160" />
        <source>已经有主题「{0}」了。要把「{1}」的记忆都并入「{0}」吗？</source>
        <translation>There is already a theme “{0}”. Move the memories of “{1}” into “{0}”?</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="164" />
        <source>合并</source>
        <translation>Merge</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="191" />
        <source>撤销</source>
        <translation>Undo</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/selection.py" line="204" />
        <source>已撤销（{0} 条记忆）</source>
        <translation>Undone ({0} memories)</translation>
    </message>
</context>
<context>
    <name>WallFilters</name>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="40" />
        <source>你</source>
        <translation>You</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="44" />
        <source>导入</source>
        <translation>Imported</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="47" />
        <source>其他应用</source>
        <translation>Another app</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="53" />
        <source>从 {0} 的聊天记录导入</source>
        <translation>Imported from {0} chats</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="55" />
        <source>导入的记忆（没有修改记录）</source>
        <translation>Imported memory (no change history)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="57" />
        <source>最后由你修改</source>
        <translation>Last changed by you</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="59" />
        <source>最后由 Sonetto 修改</source>
        <translation>Last changed by Sonetto</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="60" />
        <source>最后由其他应用修改：{0}</source>
        <translation>Last changed by another app: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="64" />
        <source>已锁定：Sonetto 和其他应用不能修改、合并或删除它，你仍然可以。</source>
        <translation>Locked: Sonetto and other apps cannot change, merge or delete it; you still can.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="69" />
        <source>全部</source>
        <translation>All</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="70" />
        <source>已锁定</source>
        <translation>Locked</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="71" />
        <source>Sonetto 写的</source>
        <translation>Written by Sonetto</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="72" />
        <source>我写的</source>
        <translation>Written by me</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="73" />
        <source>其他应用写的</source>
        <translation>Written by other apps</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/authors.py" line="74" />
        <source>导入的</source>
        <translation>Imported</translation>
    </message>
</context>
<context>
    <name>WallOutline</name>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/outline.py" line="83" />
        <source>主题目录</source>
        <translation>Themes</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/outline.py" line="98" />
        <source>{0}（{1}）</source>
        <translation>{0} ({1})</translation>
    </message>
</context>
<context>
    <name>WallToolbar</name>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="73" />
        <source>搜索记忆</source>
        <translation>Search</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="74" />
        <source>搜索记忆（Ctrl+F）：空格和标点不影响结果，中文可以用拼音或拼音首字母（如 kf）；Esc 清空</source>
        <translation>Search memories (Ctrl+F): spaces and punctuation do not matter, Chinese can be typed as pinyin or its initials (such as kf); Esc clears</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="82" />
        <source>最近更新</source>
        <translation>Latest</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="83" />
        <source>用到最多</source>
        <translation>Most used</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="49" />
        <source>显示方式</source>
        <extracomment>Around the placeholder: the border, padding and search icon before it, the clear button's room after it (the × appears where the placeholder ends), and a pixel between.</extracomment>
        <translation>View options</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="91" />
        <source>主题目录（点击跳转）</source>
        <translation>List of themes (click to jump)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="93" />
        <source>紧凑显示（卡片更小，最多两行）</source>
        <translation>Compact (smaller cards, at most two lines)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="96" />
        <source>跳到主题</source>
        <translation>Go to theme</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="99" />
        <source>筛选</source>
        <translation>Filter</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="111" />
        <source>删除 Sonetto 今天写的…</source>
        <translation>Delete what Sonetto wrote today…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="52" />
        <source>新建</source>
        <translation>New</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="52" />
        <source>新建一条记忆</source>
        <translation>Add a memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="54" />
        <source>回收站</source>
        <translation>Trash</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="125" />
        <source>显示全部</source>
        <translation>Show all</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="126" />
        <source>取消筛选，显示全部记忆</source>
        <translation>Clear the filter and show every memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/wall/toolbar.py" line="181" />
        <source>筛选：{0}</source>
        <translation>Filter: {0}</translation>
    </message>
</context>
<context>
    <name>WelcomePanel</name>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/welcome.py" line="33" />
        <source>你好，我是 Sonetto</source>
        <translation>Hi, I'm Sonetto</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/welcome.py" line="38" />
        <source>我会记住我们聊过的事，下次见面时还记得你。
开始聊天前，请先在设置里填写一个模型服务（OpenAI、DeepSeek、通义千问，或本机的 Ollama / LM Studio）。
右边的记忆墙现在就可以用。</source>
        <translation>I remember what we talk about, and I'll still remember next time.
Before we chat, add a model service in the settings (OpenAI, DeepSeek, Qwen, or Ollama / LM Studio on this computer).
The memory wall on the right works already.</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/welcome.py" line="48" />
        <source>打开设置</source>
        <translation>Open settings</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/welcome.py" line="51" />
        <source>已经有记忆或聊天记录？</source>
        <translation>Memories or chats already?</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/welcome.py" line="54" />
        <source>导入记忆文件…</source>
        <translation>Import a memories file…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/welcome.py" line="55" />
        <source>SonettoHere 的 memory.yaml，或导出的记忆文件（YAML、JSON、Markdown）</source>
        <translation>SonettoHere's memory.yaml, or an exported memories file (YAML, JSON, Markdown)</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/welcome.py" line="57" />
        <source>导入聊天记录…</source>
        <translation>Import chats…</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/chat/welcome.py" line="58" />
        <source>ChatGPT、Claude、DeepSeek 等导出的聊天记录：现在就能读取和预览，设置好模型后写成记忆</source>
        <translation>Chats exported from ChatGPT, Claude, DeepSeek and others: read and previewed now, written as memories once a model is set</translation>
    </message>
</context>
<context>
    <name>WriterControl</name>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="102" />
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="133" />
        <source>暂停记忆写入</source>
        <translation>Pause memory writing</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="103" />
        <source>重试失败的轮次</source>
        <translation>Retry failed turns</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="104" />
        <source>Sonetto 想做的记忆变化，等你确认</source>
        <translation>Memory changes Sonetto would like to make, waiting for you</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="105" />
        <source>整理记忆时发现的、说法不一致的记忆，等你确认</source>
        <translation>Memories that say different things, found while tidying, waiting for you</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="121" />
        <source>待审核 %1</source>
        <translation>To review %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="126" />
        <source>矛盾 %1</source>
        <translation>Contradictions %1</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/status_indicator.py" line="133" />
        <source>继续记忆写入</source>
        <translation>Resume memory writing</translation>
    </message>
</context>
<context>
    <name>WriterToasts</name>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="49" />
        <source>这轮对话的记忆整理已放弃（失败 {0} 次，留在失败列表里，可在状态栏重试）：{1}</source>
        <translation>Gave up organising memories for this exchange (failed attempts: {0}; kept in the failed list, retry it from the status bar): {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="66" />
        <source>想更新「{0}」，但它已锁定</source>
        <translation>Wanted to update “{0}”, but it is locked</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="85" />
        <source>{0}（其他应用）· {1}</source>
        <translation>{0} (another app) · {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="101" />
        <source>记住了：{0}</source>
        <translation>Remembered: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="102" />
        <source>记住了一件新事</source>
        <translation>Remembered something new</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="105" />
        <source>更新了记忆：{0}</source>
        <translation>Updated a memory: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="106" />
        <source>更新了记忆</source>
        <translation>Updated a memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="109" />
        <source>合并了两条记忆</source>
        <translation>Merged two memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="111" />
        <source>删除了过时的记忆：{0}</source>
        <translation>Deleted an outdated memory: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="112" />
        <source>删除了过时的记忆</source>
        <translation>Deleted an outdated memory</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="98" />
        <source>导入了 {0} 条记忆</source>
        <translation>Imported {0} memories</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/writer_toasts.py" line="103" />
        <source>解锁</source>
        <translation>Unlock</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/writer_toasts.py" line="121" />
        <source>已解锁：Sonetto 之后可以更新这条记忆了</source>
        <translation>Unlocked: Sonetto may update this memory from now on</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/ui/notices/writer_toasts.py" line="163" />
        <source>撤销</source>
        <translation>Undo</translation>
    </message>
    <message numerus="yes">
        <location filename="../../sonetto_desktop/ui/notices/writer_toasts.py" line="182" />
        <source>已撤销这轮的 %Ln 处记忆变化</source>
        <translation><numerusform>Undid this turn's memory change</numerusform><numerusform>Undid this turn's %Ln memory changes</numerusform></translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="52" />
        <source>这轮对话的记忆整理已放弃：{0}</source>
        <translation>Gave up organising memories for this exchange: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="53" />
        <source>这轮对话的记忆整理已放弃</source>
        <translation>Gave up organising memories for this exchange</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="55" />
        <source>整理记忆第 {0} 次失败：{1}</source>
        <translation>Couldn't organise memories (attempt {0}): {1}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="57" />
        <source>整理记忆失败：{0}</source>
        <translation>Couldn't organise memories: {0}</translation>
    </message>
    <message>
        <location filename="../../sonetto_desktop/presentation/toasts.py" line="59" />
        <source>整理记忆失败</source>
        <translation>Couldn't organise memories</translation>
    </message>
</context>
</TS>