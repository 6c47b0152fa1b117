; Vidya's additions to Tauri's NSIS installer (Tauri 2.12, `bundle > windows > nsis >
; installerHooks`). Tauri's template `!include`s this file near its top, before it defines
; PRODUCTNAME and before its pages and sections, and inserts the four NSIS_HOOK_* macros below
; into its Install and Uninstall sections (`!ifmacrodef NSIS_HOOK_PREINSTALL ...`).
;
; What Vidya adds:
;   * Windows 10 or 11 only: the installer says so on its welcome page and refuses older Windows
;     before any page is shown (GUI) or before anything is installed (silent `/S`).
;   * installer-source.txt: the folder the installer ran from (e.g. the teacher's USB stick), so
;     the app's setup wizard finds OllamaSetup.exe and .gguf model files placed beside it.
;   * Uninstalling keeps the teacher's library (%APPDATA%\Vidya) unless the uninstaller's
;     "Delete the application data" box was ticked.
; The Start-menu entry, the uninstaller entry in Settings > Apps and the WebView2 install come
; from Tauri's template, not from here.
;
; Names this file relies on from Tauri's template (checked by installers/windows/check.sh):
; the variables $UpdateMode and $DeleteAppDataCheckboxState, $INSTDIR set to
; $LOCALAPPDATA\${PRODUCTNAME} for `installMode: currentUser`, and the hook macro names.
; Nothing at the top level of this file may use ${PRODUCTNAME}: it is defined after the include.

!include "LogicLib.nsh"
!include "WinVer.nsh"

; Language ids (LoadLanguageFile defines LANG_* only later, in the template's MUI_LANGUAGE).
!define VIDYA_LANG_ENGLISH 1033
!define VIDYA_LANG_HINDI 1081

; The welcome page says which Windows versions Vidya runs on.
LangString vidyaWelcomeText ${VIDYA_LANG_ENGLISH} "This will install Vidya, the offline textbook tutor, for your Windows account. No administrator password and no internet connection are needed.$\r$\n$\r$\nVidya runs on Windows 10 and Windows 11.$\r$\n$\r$\nClick Next to continue."
LangString vidyaWelcomeText ${VIDYA_LANG_HINDI} "यह आपके Windows खाते के लिए Vidya (ऑफ़लाइन पाठ्यपुस्तक शिक्षक) इंस्टॉल करेगा। इसके लिए न एडमिनिस्ट्रेटर पासवर्ड चाहिए, न इंटरनेट।$\r$\n$\r$\nVidya, Windows 10 और Windows 11 पर चलता है।$\r$\n$\r$\nआगे बढ़ने के लिए अगला (Next) दबाएँ।"
!define MUI_WELCOMEPAGE_TEXT "$(vidyaWelcomeText)"

; Refuses Windows older than 10 (Windows 11 reports itself as 10.0 too, so it passes): a message
; (not shown by a silent install, which only gets the exit code), exit code 1150
; (ERROR_OLD_WIN_VERSION), and the installer ends before it changes anything.
!macro VIDYA_REQUIRE_WINDOWS_10
  ${IfNot} ${AtLeastWin10}
    ${If} $LANGUAGE = ${VIDYA_LANG_HINDI}
      MessageBox MB_OK|MB_ICONSTOP "Vidya को Windows 10 या Windows 11 चाहिए।$\r$\n$\r$\nइस कंप्यूटर पर Windows का पुराना संस्करण है, इसलिए Vidya यहाँ इंस्टॉल नहीं किया जा सकता। कुछ भी बदला नहीं गया है।" /SD IDOK
    ${Else}
      MessageBox MB_OK|MB_ICONSTOP "Vidya needs Windows 10 or Windows 11.$\r$\n$\r$\nThis computer has an older version of Windows, so Vidya cannot be installed here. Nothing was changed." /SD IDOK
    ${EndIf}
    SetErrorLevel 1150
    Quit
  ${EndIf}
!macroend

; GUI installs: refuse before the first page (MUI calls this from .onGUIInit, after the
; template's .onInit has chosen the language). Tauri's template does not set this MUI hook.
!define MUI_CUSTOMFUNCTION_GUIINIT VidyaGuiInit
Function VidyaGuiInit
  !insertmacro VIDYA_REQUIRE_WINDOWS_10
FunctionEnd

; Silent installs get no GUI: this hidden section is the installer's first section (this file is
; included before the template's sections), so it runs before Tauri's WebView2 section.
Section "-VidyaRequireWindows10"
  !insertmacro VIDYA_REQUIRE_WINDOWS_10
SectionEnd

; Writes $EXEDIR (the folder the installer was started from) to $INSTDIR\installer-source.txt
; as one UTF-8 line (no BOM, CRLF), whatever the characters of the path: NSIS's FileWrite would
; write the ANSI code page instead, so the text is converted with WideCharToMultiByte(CP_UTF8).
; A drive root comes as "E:" in $EXEDIR; it is written as "E:\" (a path, not "current folder on E:").
!macro VIDYA_WRITE_INSTALLER_SOURCE
  Push $0
  Push $1
  Push $2
  Push $3
  Push $4
  Push $5
  StrCpy $5 "$EXEDIR"
  StrLen $1 $5
  StrCpy $2 $5 1 -1
  ${If} $1 = 2
  ${AndIf} $2 == ":"
    StrCpy $5 "$5\"
  ${EndIf}
  ClearErrors
  FileOpen $0 "$INSTDIR\installer-source.txt" w
  ${If} ${Errors}
    DetailPrint "Vidya: could not write $INSTDIR\installer-source.txt"
  ${Else}
    ; $1 = bytes needed including the terminating NUL; $2 = buffer.
    System::Call 'kernel32::WideCharToMultiByte(i 65001, i 0, w r5, i -1, p 0, i 0, p 0, p 0) i .r1'
    ${If} $1 > 1
      System::Alloc $1
      Pop $2
      System::Call 'kernel32::WideCharToMultiByte(i 65001, i 0, w r5, i -1, p r2, i r1, p 0, p 0) i .r1'
      IntOp $1 $1 - 1
      System::Call 'kernel32::WriteFile(p r0, p r2, i r1, *i .r3, p 0) i .r4'
      System::Free $2
    ${EndIf}
    FileWriteByte $0 13
    FileWriteByte $0 10
    FileClose $0
    DetailPrint "Vidya: installer folder $5 recorded in installer-source.txt"
  ${EndIf}
  Pop $5
  Pop $4
  Pop $3
  Pop $2
  Pop $1
  Pop $0
!macroend

!macro NSIS_HOOK_PREINSTALL
  ; Normally done already (VidyaGuiInit, the hidden first section); kept here so the check holds
  ; even if a later template reorders its sections.
  !insertmacro VIDYA_REQUIRE_WINDOWS_10
!macroend

!macro NSIS_HOOK_POSTINSTALL
  ; An update started by the app itself (`/UPDATE`) runs from a temporary folder: keep the
  ; folder recorded by the teacher's own install.
  ${If} $UpdateMode <> 1
  ${OrIfNot} ${FileExists} "$INSTDIR\installer-source.txt"
    !insertmacro VIDYA_WRITE_INSTALLER_SOURCE
  ${EndIf}
!macroend

!macro NSIS_HOOK_PREUNINSTALL
  ${If} $UpdateMode <> 1
    DetailPrint "Vidya: your library in $APPDATA\Vidya is kept unless you chose to delete the application data."
  ${EndIf}
!macroend

!macro NSIS_HOOK_POSTUNINSTALL
  ${If} $UpdateMode <> 1
    ; Written by the installer (not one of Tauri's files), so Tauri's uninstaller leaves it.
    Delete "$INSTDIR\installer-source.txt"
    ; Tauri removes the folder only when it is empty; it is now, unless the teacher put files in it.
    RMDir "$INSTDIR"
  ${EndIf}
  ; The teacher's library, settings and logs: directories::ProjectDirs::from("", "", "Vidya")
  ; puts them under %APPDATA%\Vidya (data_dir = %APPDATA%\Vidya\data). Tauri's own checkbox
  ; handling removes only %APPDATA%\org.vidya.tutor and %LOCALAPPDATA%\org.vidya.tutor (the
  ; WebView2 data); this removes the library too, and only when the box was ticked.
  ${If} $DeleteAppDataCheckboxState = 1
  ${AndIf} $UpdateMode <> 1
    SetShellVarContext current
    ${If} $APPDATA != ""
      DetailPrint "Vidya: deleting the library and settings in $APPDATA\Vidya"
      RMDir /r "$APPDATA\Vidya"
    ${EndIf}
  ${EndIf}
!macroend
